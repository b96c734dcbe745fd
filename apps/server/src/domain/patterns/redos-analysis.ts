import { patternReferences, unsafePattern } from '@arbiter/conditions';
import type { Diagnostics } from 'recheck';
import { DomainError } from '../outcomes.ts';

/**
 * The lowest polynomial degree refused. Every evaluator searches at most 1,024 code points, so a
 * quadratic pattern costs about a million steps at worst (`a+b+` is one, searched unanchored);
 * from the cube up, the worst case is seconds to hours.
 */
export const REFUSED_DEGREE = 3;
/** How long the analyser may take on one pattern; past it the pattern is not refused. */
const ANALYSIS_TIMEOUT_MS = 5_000;
const MAX_CACHED = 1_000;

const analysed = new Map<string, Promise<string | undefined>>();

/** Why the analyser finds a diagnosis too slow to run, or undefined when it does not. */
function verdict(diagnostics: Diagnostics): string | undefined {
  if (diagnostics.status !== 'vulnerable') return undefined;
  const { complexity } = diagnostics;
  if (complexity.type === 'polynomial' && complexity.degree < REFUSED_DEGREE) return undefined;
  const growth =
    complexity.type === 'exponential' ? 'exponential' : `degree-${complexity.degree} polynomial`;
  return `the ReDoS analyser (recheck) finds ${growth} backtracking`;
}

/**
 * What the ReDoS analyser says of a pattern (recheck: its native agent where npm installed one,
 * its pure JavaScript build otherwise; asynchronous, so the event loop keeps serving): the
 * reason it is refused, or undefined. A pattern it cannot decide (a timeout, a construct it does
 * not know) is not refused: the static rule has already let it through. Answers are kept.
 */
export function analysePattern(pattern: string, insensitive: boolean): Promise<string | undefined> {
  const key = `${insensitive ? 'i' : '-'}${pattern}`;
  const known = analysed.get(key);
  if (known !== undefined) return known;
  // Loaded on first use: a start that checks no pattern does not read it.
  const answer = import('recheck')
    .then(({ check }) =>
      check(pattern, insensitive ? 'i' : '', { timeout: ANALYSIS_TIMEOUT_MS, randomSeed: 0 }),
    )
    .then(verdict, () => undefined);
  if (analysed.size >= MAX_CACHED) analysed.clear();
  analysed.set(key, answer);
  return answer;
}

/** A pattern of a condition that no evaluator of the server may run, and why. */
export interface PatternRefusal {
  /** JSON Pointer into the condition. */
  pointer: string;
  pattern: string;
  insensitive: boolean;
  reason: string;
  /** `rule`: the static rule every evaluator applies; `analyser`: the server's ReDoS analyser. */
  found_by: 'rule' | 'analyser';
}

/** Every pattern of the condition that the static rule or the analyser refuses, in order. */
export async function patternRefusals(condition: unknown): Promise<PatternRefusal[]> {
  const out: PatternRefusal[] = [];
  for (const { pointer, pattern, insensitive } of patternReferences(condition)) {
    const unsafe = unsafePattern(pattern);
    const reason = unsafe ?? (await analysePattern(pattern, insensitive));
    if (reason !== undefined)
      out.push({
        pointer,
        pattern,
        insensitive,
        reason,
        found_by: unsafe === undefined ? 'analyser' : 'rule',
      });
  }
  return out;
}

/**
 * Refuses targeting with a pattern the ReDoS analyser finds too slow, pointing at each. Patterns
 * the static rule refuses are left to the condition check, which says why in its own words.
 */
export async function refuseSlowPatterns(targeting: unknown): Promise<void> {
  const refused = (await patternRefusals(targeting ?? {})).filter((r) => r.found_by === 'analyser');
  if (refused.length === 0) return;
  const errors = refused.map((r) => ({
    pointer: `#/targeting${r.pointer}`,
    detail: `${JSON.stringify(r.pattern)} could take too long to search: ${r.reason}`,
  }));
  const first = errors[0] as { pointer: string; detail: string };
  throw new DomainError(
    'config-invalid',
    `${errors.length} invalid field${errors.length === 1 ? '' : 's'} in the body; first: ${first.pointer} ${first.detail}`,
    { errors },
  );
}
