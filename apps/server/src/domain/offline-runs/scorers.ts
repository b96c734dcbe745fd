import type { Scorer } from './run-schema.ts';

/** A stored result as the scorers read it. */
export interface ScoredResult {
  output: unknown;
  error: string | null;
  latencyMs: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cost: number | null;
  scores: Record<string, number>;
}

/** A string as itself; any other JSON value as its compact JSON. */
export function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Levenshtein distance over Unicode code points (two rows of the table). */
export function levenshtein(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  let next = new Array<number>(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    next[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      next[j] = Math.min(
        (prev[j] as number) + 1,
        (next[j - 1] as number) + 1,
        (prev[j - 1] as number) + cost,
      );
    }
    [prev, next] = [next, prev];
  }
  return prev[b.length] as number;
}

function parseNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string' || value.trim() === '') return null;
  const n = Number(value.trim());
  return Number.isFinite(n) ? n : null;
}

const hasExpected = (expected: unknown) => expected !== null && expected !== undefined;

/**
 * One scorer's value for one result, or null when it has none: a failed result has no value
 * for output scorers (and 1 for error_rate); a result without an output has none either; a
 * scorer that compares needs the item's expected output.
 */
export function score(scorer: Scorer, result: ScoredResult, expected: unknown): number | null {
  switch (scorer.kind) {
    case 'latency_ms':
      return result.latencyMs;
    case 'total_tokens':
      return result.inputTokens === null && result.outputTokens === null
        ? null
        : (result.inputTokens ?? 0) + (result.outputTokens ?? 0);
    case 'cost':
      return result.cost;
    case 'error_rate':
      return result.error === null ? 0 : 1;
    case 'judge':
      // The judge model's, through its queue: never computed here.
      return null;
    default:
      break;
  }
  if (result.error !== null) return null;
  if (scorer.kind === 'custom') return result.scores[scorer.name] ?? null;
  if (result.output === null || result.output === undefined) return null;
  const output = asText(result.output);
  switch (scorer.kind) {
    case 'json_valid':
      if (typeof result.output !== 'string') return 1;
      try {
        JSON.parse(result.output);
        return 1;
      } catch {
        return 0;
      }
    case 'exact_match': {
      if (!hasExpected(expected)) return null;
      const fold = (s: string) => (scorer.case_sensitive === false ? s.toLowerCase() : s);
      return fold(output.trim()) === fold(asText(expected).trim()) ? 1 : 0;
    }
    case 'contains':
      if (!hasExpected(expected)) return null;
      return output.includes(asText(expected)) ? 1 : 0;
    case 'levenshtein': {
      if (!hasExpected(expected)) return null;
      const a = Array.from(output);
      const b = Array.from(asText(expected));
      const longer = Math.max(a.length, b.length);
      return longer === 0 ? 1 : 1 - levenshtein(a, b) / longer;
    }
    case 'numeric_close': {
      const want = parseNumber(expected);
      if (want === null) return null;
      const got = parseNumber(result.output);
      return got !== null && Math.abs(got - want) <= (scorer.tolerance ?? 0) ? 1 : 0;
    }
  }
}
