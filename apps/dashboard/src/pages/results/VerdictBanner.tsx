import type { Results } from '../../api/client.ts';

type Decision = Results['decision'];

/** The run's recommendation in words; the colour follows it (green ship, red keep control or halted). */
function headline(d: Decision): string {
  switch (d.recommendation) {
    case 'ship':
      return d.treatment === null ? 'Ship' : `Ship ${d.treatment}`;
    case 'keep_control':
      return 'Keep control';
    case 'halted':
      return 'Halted: no decision while the split is wrong';
    default:
      return 'Keep collecting';
  }
}

/**
 * The verdict at the top of a run: what the server recommends and its reasons, which name the
 * metrics. The dashboard decides nothing here; it shows `decision` as the API returned it.
 */
export function VerdictBanner({ decision }: { decision: Decision }) {
  return (
    <section
      className={`verdict ${decision.recommendation}`}
      aria-labelledby="verdict-title"
      data-testid="verdict"
      data-recommendation={decision.recommendation}
    >
      <h2 id="verdict-title">
        <span className="hint">Verdict: </span>
        {headline(decision)}
      </h2>
      {decision.reasons.length > 0 ? (
        <ul>
          {decision.reasons.map((r) => (
            <li key={r}>{r}</li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
