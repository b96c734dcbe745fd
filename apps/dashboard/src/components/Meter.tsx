/**
 * One usage counter against its allowance (the org's usage page and an org's admin detail). An
 * allowance of 0 means the plan does not include the feature at all: said so, not "0 of 0".
 */
export function Meter({
  label,
  used,
  included,
  plan,
}: {
  label: string;
  used: number;
  included: number;
  /** The plan's name as people read it ("Free"). */
  plan: string;
}) {
  if (included === 0)
    return (
      <div className="card meter">
        <h2>{label}</h2>
        <p data-testid={`meter-${label}`}>
          Not on the {plan} plan{used > 0 ? ` (${used.toLocaleString('en-US')} used)` : ''}.
        </p>
      </div>
    );
  return (
    <div className="card meter">
      <h2>{label}</h2>
      <progress
        max={included}
        value={Math.min(used, included)}
        aria-label={`${label}: ${used} of ${included}`}
      />
      <p data-testid={`meter-${label}`}>
        {used.toLocaleString('en-US')} of {included.toLocaleString('en-US')} included
      </p>
    </div>
  );
}
