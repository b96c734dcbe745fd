import type { MetricResult } from '../../api/client.ts';

/** The interval and p-values a row's decision was made on. */
export interface DecidedOn {
  ci_low: number | null;
  ci_high: number | null;
  p_value: number | null;
  p_value_fdr: number | null;
  /** The always-valid sequential values (a manual run), or the fixed-horizon ones (nightly). */
  always_valid: boolean;
}

/**
 * A manual (preliminary) run decides on the always-valid sequential interval and p-values, so
 * that peeking cannot raise a false alarm; a nightly run on the fixed-horizon ones. A manual
 * row without sequential values (not computable) has nothing to show.
 */
export function decidedOn(r: MetricResult, preliminary: boolean): DecidedOn {
  if (!preliminary)
    return {
      ci_low: r.ci_low,
      ci_high: r.ci_high,
      p_value: r.p_value,
      p_value_fdr: r.p_value_fdr,
      always_valid: false,
    };
  const s = r.sequential ?? null;
  return {
    ci_low: s?.ci_low ?? null,
    ci_high: s?.ci_high ?? null,
    p_value: s?.p_value ?? null,
    p_value_fdr: s?.p_value_fdr ?? null,
    always_valid: true,
  };
}
