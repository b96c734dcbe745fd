import { Link, useSearchParams } from 'react-router';
import type { BillingSummary } from '../../api/client.ts';
import { useWhoami } from '../../auth/whoami.ts';
import { ProblemView, QueryView } from '../../components/states.tsx';
import { LimitsNote } from './LimitsNote.tsx';
import { PlanChoices } from './PlanChoices.tsx';
import { planName } from './plan-name.ts';
import { useBillingSummary, useHostedPage, useUsage } from './queries.ts';
import { SubscriptionLine } from './SubscriptionLine.tsx';

export function BillingPage() {
  const summary = useBillingSummary();
  const usage = useUsage();
  const [params] = useSearchParams();
  const back = params.get('checkout');
  return (
    <section>
      <h1>Billing</h1>
      {back === 'success' ? (
        <p className="secret" role="status">
          Checkout complete. The new plan applies as soon as the billing provider confirms it.
        </p>
      ) : null}
      {back === 'cancelled' ? (
        <p className="note" role="status">
          Checkout cancelled: nothing was charged and the plan is unchanged.
        </p>
      ) : null}
      <QueryView query={summary} what="billing">
        {(s) => <BillingCards summary={s} />}
      </QueryView>
      {usage.data ? <LimitsNote usage={usage.data} /> : null}
      <p>
        <Link to="/usage">Usage this month against your plan’s allowances</Link>
      </p>
    </section>
  );
}

function BillingCards({ summary: s }: { summary: BillingSummary }) {
  const me = useWhoami();
  const hosted = useHostedPage();
  const isAdmin = me.data ? me.data.role !== 'member' : true;
  return (
    <>
      <section className="card" aria-label="Current plan">
        <h2>
          Plan: <span data-testid="plan">{planName(s.plan)}</span>
        </h2>
        <SubscriptionLine summary={s} />
        {s.override !== null ? (
          <p className="note" data-testid="override">
            Pinned to {planName(s.override)} by the platform owner. While the pin is in force,
            checkouts and subscription changes do not change the plan.
          </p>
        ) : null}
      </section>
      {!s.billing_configured ? (
        <p className="note" data-testid="not-configured">
          Billing is not configured on this server (no <code>ARBITER_STRIPE_SECRET_KEY</code>), so
          plans cannot be bought here: the org stays on {planName(s.plan)} unless a platform owner
          pins another plan.
        </p>
      ) : (
        <>
          {!isAdmin ? <p className="hint">Only org admins and owners can change billing.</p> : null}
          {s.override === null ? (
            <PlanChoices
              current={s.plan}
              disabled={!isAdmin || hosted.checkout.isPending}
              onChoose={(plan) => hosted.checkout.mutate(plan)}
            />
          ) : null}
          {hosted.checkout.error ? <ProblemView error={hosted.checkout.error} /> : null}
          <section className="card" aria-label="Billing portal">
            <h2>Invoices and payment method</h2>
            {s.has_billing_account ? (
              <button
                type="button"
                onClick={() => hosted.portal.mutate()}
                disabled={!isAdmin || hosted.portal.isPending}
              >
                Open billing portal
              </button>
            ) : (
              <p className="empty" data-testid="no-account">
                No billing account yet: one is made with the first checkout.
              </p>
            )}
            {hosted.portal.error ? <ProblemView error={hosted.portal.error} /> : null}
          </section>
        </>
      )}
    </>
  );
}
