import type { GuardrailViolation, MetricResult } from '../../schemas/analysis-run.ts';

/**
 * The run's guardrail violations (docs/decisions/analysis.md#guardrails): guardrail pairs whose outcome
 * is worse, by metric then treatment, each with the interval and FDR p-value its outcome was
 * decided on (the always-valid ones on a manual run).
 */
export function guardrailViolations(
  results: Readonly<Record<string, MetricResult>>,
): GuardrailViolation[] {
  return Object.values(results)
    .filter((r) => r.category === 'guardrail' && r.outcome === 'worse')
    .sort((a, b) =>
      a.metric === b.metric
        ? a.treatment.localeCompare(b.treatment)
        : a.metric.localeCompare(b.metric),
    )
    .map((r) => {
      const decidedOn = r.preliminary && r.sequential ? r.sequential : r;
      return {
        metric: r.metric,
        treatment: r.treatment,
        direction: r.direction,
        effect: r.effect,
        lift: r.lift,
        ci_low: decidedOn.ci_low,
        ci_high: decidedOn.ci_high,
        p_value_fdr: decidedOn.p_value_fdr,
        always_valid: decidedOn !== r,
      };
    });
}
