import { planName } from './plan-name.ts';

// What each plan includes lives in the server's plans table; the usage page shows the allowances.
const PAID = ['pro', 'business'] as const;

/** The plans a checkout can buy; the one already active is not offered again (it would be 409). */
export function PlanChoices({
  current,
  disabled,
  onChoose,
}: {
  current: string;
  disabled: boolean;
  onChoose: (plan: (typeof PAID)[number]) => void;
}) {
  return (
    <section className="cards" aria-label="Paid plans">
      {PAID.map((plan) => (
        <div key={plan} className="card">
          <h2>{planName(plan)}</h2>
          {current === plan ? (
            <p>
              <strong>Your current plan</strong>
            </p>
          ) : (
            <button type="button" disabled={disabled} onClick={() => onChoose(plan)}>
              Check out {planName(plan)}
            </button>
          )}
        </div>
      ))}
    </section>
  );
}
