import type { Scorer } from '../../api/client.ts';
import { armValue, effectValue } from '../results/format.ts';

/**
 * A scorer's values in the units of the results pages: the 0/1 scorers and `error_rate` are
 * shares (means as percentages, differences in points), latency in ms, cost in dollars,
 * tokens as tokens; levenshtein, custom and judge scores as plain numbers.
 */
const UNIT_KIND: Record<Scorer['kind'], string> = {
  exact_match: 'conversion',
  contains: 'conversion',
  json_valid: 'conversion',
  numeric_close: 'conversion',
  error_rate: 'error_rate',
  latency_ms: 'latency',
  cost: 'cost',
  total_tokens: 'tokens',
  levenshtein: 'value',
  custom: 'value',
  judge: 'value',
};

const unitOf = (kind: Scorer['kind'] | undefined) => (kind ? UNIT_KIND[kind] : 'value');

/** A mean over items ("70.0%", "812 ms"). */
export const meanValue = (kind: Scorer['kind'] | undefined, x: number | null | undefined) =>
  armValue(unitOf(kind), x);

/** A difference, treatment − baseline, signed ("−30 pts", "+12 ms"). */
export const differenceValue = (kind: Scorer['kind'] | undefined, x: number | null | undefined) =>
  effectValue(unitOf(kind), x);

/** "↑ higher is better" and its opposite. */
export const directionWords = (direction: 'increase' | 'decrease') =>
  direction === 'increase' ? '↑ higher is better' : '↓ lower is better';

/** A share (0 to 1) as a percentage with one decimal; "—" when there is none. */
export const share = (x: number | null | undefined) =>
  x === null || x === undefined ? '—' : `${(x * 100).toFixed(1)}%`;
