import type { MetricResult } from '../../api/client.ts';
import { armValue, num } from './format.ts';

type Capping = NonNullable<MetricResult['capping']>;

/** "p99.9 of both arms" or "a fixed bound": where a side's bound came from. */
function source(cap: Capping['cap'], side: 'upper' | 'lower'): string {
  const p = side === 'upper' ? cap.percentile : cap.lower_percentile;
  return p === undefined ? 'a fixed bound' : `p${num(p * 100, 6)} of both arms`;
}

/** "3 users in control, 1 in treatment". */
function touched(r: MetricResult, capping: Capping): string {
  const n = (arm: string) => capping.users_capped[arm] ?? 0;
  const users = (k: number) => `${k} user${k === 1 ? '' : 's'}`;
  return `${users(n(r.control))} in ${r.control}, ${n(r.treatment)} in ${r.treatment}`;
}

/**
 * A capped metric's cap under its table: the bounds the run used (in the metric's unit), where
 * they came from, and the users each arm had beyond them; for Mann–Whitney, that it ranked the
 * uncapped values and what the cap would have touched.
 */
export function CapNote({ rows }: { rows: MetricResult[] }) {
  const first = rows.find((r) => r.capping);
  const capping = first?.capping;
  if (!first || !capping) return null;
  const bounds = [
    capping.upper === null
      ? null
      : `above ${armValue(first.kind, capping.upper)} (${source(capping.cap, 'upper')})`,
    capping.lower === null
      ? null
      : `below ${armValue(first.kind, capping.lower)} (${source(capping.cap, 'lower')})`,
  ].filter((b) => b !== null);
  const where = bounds.length ? bounds.join(' and ') : 'beyond no bound (no user had a value)';
  return (
    <ul className="hint cap-note" data-testid={`cap-${first.metric}`}>
      {rows.map((r) =>
        r.capping ? (
          <li key={r.treatment}>
            {r.capping.applied
              ? `Capped: per-user values ${where} were set to the bound before the test; ${touched(r, r.capping)}.`
              : `Not capped for ${r.test}, which ranks the values as they are; the cap (values ${where}) would have touched ${touched(r, r.capping)}.`}
          </li>
        ) : null,
      )}
    </ul>
  );
}
