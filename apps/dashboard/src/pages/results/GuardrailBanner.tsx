import type { Experiment, Results } from '../../api/client.ts';
import { effectValue, intervalValue, percent, pValue, titleOf } from './format.ts';

/**
 * Guardrail metrics whose outcome is worse, as the API lists them: each with its effect in the
 * metric's unit, the interval and FDR p-value the decision was made on, and whether those are
 * the always-valid (manual run) or the fixed-horizon (nightly) ones.
 */
export function GuardrailBanner({
  run,
  metrics,
}: {
  run: Results;
  metrics: Experiment['metrics'];
}) {
  const violations = run.guardrail_violations;
  if (violations.length === 0) return null;
  const kindOf = (metric: string, treatment: string) =>
    run.results[`${metric}::${treatment}`]?.kind ?? '';
  return (
    <div className="guardrail-banner" role="alert" data-testid="guardrail-banner">
      <strong>
        Guardrail broken:{' '}
        {violations.length === 1
          ? 'one guardrail metric is significantly worse'
          : `${violations.length} guardrail results are significantly worse`}
      </strong>
      <ul>
        {violations.map((v) => {
          const kind = kindOf(v.metric, v.treatment);
          return (
            <li
              key={`${v.metric}::${v.treatment}`}
              data-testid={`violation-${v.metric}-${v.treatment}`}
            >
              <strong>{titleOf(metrics, v.metric)}</strong> on {v.treatment}:{' '}
              {effectValue(kind, v.effect)} ({percent(v.lift)}),{' '}
              {v.always_valid ? 'always-valid ' : ''}95% CI{' '}
              {intervalValue(kind, v.ci_low, v.ci_high)}, FDR-adjusted p {pValue(v.p_value_fdr)}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
