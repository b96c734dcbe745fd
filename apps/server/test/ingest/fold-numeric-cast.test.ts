import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/connect.ts';
import { asNumeric } from '../../src/ingest/fold-sql.ts';
import { type Harness, startHarness } from '../support/harness.ts';

// The fold turns each double into numeric by its own expression (`asNumeric`, a shortcut for
// integral values) rather than PostgreSQL's cast; the sums are exact only if the two give the
// same numeric, scale included, for every double the log can hold.

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** Deterministic doubles: every magnitude from 1e-3 to 1e18, integral and not, both signs. */
function doubles(count: number): number[] {
  let seed = 0x2545f491;
  const next = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 2 ** 32;
  };
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const magnitude = 10 ** Math.floor(next() * 21 - 3);
    const value = next() * magnitude * (next() < 0.5 ? -1 : 1);
    out.push(i % 2 === 0 ? Math.round(value) : value);
  }
  return out;
}

const EDGES = [
  '0',
  '-0',
  '1',
  '-1',
  '999999999999999',
  '-999999999999999',
  '1e15',
  '-1e15',
  '1000000000000001',
  '9007199254740993',
  '0.5',
  '-2.5',
  '1e-300',
  '1.7976931348623157e308',
  'NaN',
  'Infinity',
  '-Infinity',
];

describe("the fold's numeric conversion", () => {
  it("gives PostgreSQL's own cast's numeric for every double, edges and 20,000 others", async () => {
    const values = [...EDGES, ...doubles(20_000).map(String)];
    const literal = `{${values.join(',')}}`;
    const [result] = await rows<{ n: number; differ: number; shortcut: number; sample: string }>(
      h.ctx.db,
      sql`with v(x) as (select unnest(${literal}::float8[]))
        select count(*)::int as n,
          count(*) filter (where (x::numeric)::text is distinct from
            (${asNumeric(sql`x`)})::text)::int as differ,
          count(*) filter (where x = trunc(x) and abs(x) < 1e15::float8)::int as shortcut,
          min(x::text) filter (where (x::numeric)::text is distinct from
            (${asNumeric(sql`x`)})::text) as sample
        from v`,
    );
    expect(result).toMatchObject({ n: values.length, differ: 0, sample: null });
    // Both paths were taken, so the comparison covered the shortcut and the cast.
    expect(result?.shortcut).toBeGreaterThan(5_000);
    expect(result?.shortcut).toBeLessThan(values.length - 5_000);
  });

  it('keeps a null a null', async () => {
    const [result] = await rows<{ value: string | null }>(
      h.ctx.db,
      sql`select (${asNumeric(sql`null::float8`)})::text as value`,
    );
    expect(result?.value).toBeNull();
  });
});
