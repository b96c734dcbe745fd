import type { OfflineRun } from '../../api/client.ts';

/**
 * The gate a CI job reads, per treatment: passed when no comparison of it is worse and every
 * scorer with a margin shows it non-inferior. The reasons are the server's, word for word.
 */
export function GatesPanel({ run }: { run: OfflineRun }) {
  const gates = Object.entries(run.gates ?? {});
  if (gates.length === 0) return null;
  return (
    <section aria-labelledby="gates-heading">
      <h3 id="gates-heading">Gates</h3>
      <div className="gates">
        {gates.map(([treatment, gate]) => (
          <div
            key={treatment}
            className={`gate ${gate.passed ? 'passed' : 'failed'}`}
            data-testid={`gate-${treatment}`}
          >
            <strong>
              {treatment}: {gate.passed ? 'gate passed' : 'gate failed'}
            </strong>
            {gate.reasons.length > 0 ? (
              <ul>
                {gate.reasons.map((r) => (
                  <li key={r}>{r}</li>
                ))}
              </ul>
            ) : null}
          </div>
        ))}
      </div>
    </section>
  );
}
