/**
 * The mergeable per-arm summary the moment-based tests run on. Summaries of disjoint sets of
 * users add field by field, so per-day aggregates combine into a window without the raw values.
 */
export interface ArmSummary {
  n: number;
  sum: number;
  sumSquares: number;
}

export const EMPTY_SUMMARY: ArmSummary = Object.freeze({ n: 0, sum: 0, sumSquares: 0 });

export function summarize(values: readonly number[]): ArmSummary {
  let sum = 0;
  let sumSquares = 0;
  for (const v of values) {
    sum += v;
    sumSquares += v * v;
  }
  return { n: values.length, sum, sumSquares };
}

export function mergeSummaries(...parts: readonly ArmSummary[]): ArmSummary {
  let n = 0;
  let sum = 0;
  let sumSquares = 0;
  for (const p of parts) {
    n += p.n;
    sum += p.sum;
    sumSquares += p.sumSquares;
  }
  return { n, sum, sumSquares };
}
