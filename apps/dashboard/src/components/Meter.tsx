/** One usage counter against its allowance (the org's usage page and an org's admin detail). */
export function Meter({
  label,
  used,
  included,
}: {
  label: string;
  used: number;
  included: number;
}) {
  return (
    <div className="card meter">
      <h2>{label}</h2>
      <progress
        max={Math.max(included, 1)}
        value={Math.min(used, Math.max(included, 1))}
        aria-label={`${label}: ${used} of ${included}`}
      />
      <p>
        {used.toLocaleString()} of {included.toLocaleString()} included
      </p>
    </div>
  );
}
