/**
 * The current targeting in the page head: "everyone", or the condition as one line of JSON that
 * opens to the whole of it, read-only (the Edit tab changes it).
 */
export function TargetingSummary({ targeting }: { targeting?: Record<string, unknown> }) {
  if (!targeting || Object.keys(targeting).length === 0)
    return <p className="targeting-summary">targeting: everyone</p>;
  const line = JSON.stringify(targeting);
  return (
    <details className="targeting-summary">
      <summary>
        targeting: <code>{line.length > SHORT ? `${line.slice(0, SHORT)}…` : line}</code>
      </summary>
      <pre data-testid="current-targeting">{JSON.stringify(targeting, null, 2)}</pre>
    </details>
  );
}

const SHORT = 60;
