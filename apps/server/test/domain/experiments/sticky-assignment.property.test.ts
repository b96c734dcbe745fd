import { bucketOf, variantForBucket } from '@arbiter/bucketing';
import { type BucketMap, clientRanges, initialBucketMap, relayout } from '@arbiter/contract';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { experimentConfig, type Harness, startHarness } from '../../support/harness.ts';

const USERS = Array.from({ length: 10_000 }, (_, i) => `user-${i}`);
const POOL = ['control', 'a', 'b', 'c', 'd'];

/** An allocation: control first, then some of the pool, weights in 0.25 steps summing to ≤ 100. */
const allocationArb = fc
  .tuple(
    fc.subarray(POOL.slice(1)),
    fc.array(fc.integer({ min: 0, max: 160 }), { minLength: 5, maxLength: 5 }),
  )
  .map(([others, raw]) => {
    const variants = ['control', ...others];
    const quarters = variants.map((_, i) => raw[i] as number);
    const total = quarters.reduce((a, b) => a + b, 0);
    const scale = total > 400 ? 400 / total : 1;
    return variants.map((variant, i) => ({
      variant,
      weight: Math.floor((quarters[i] as number) * scale) / 4,
    }));
  });

const bucketCache = new Map<string, number[]>();
function assignments(salt: string, bucketCount: number, ranges: ReturnType<typeof clientRanges>) {
  const key = `${salt}/${bucketCount}`;
  let buckets = bucketCache.get(key);
  if (!buckets) {
    buckets = USERS.map((u) => bucketOf(salt, u, bucketCount));
    bucketCache.set(key, buckets);
  }
  return buckets.map((b) => variantForBucket(ranges, b));
}

/** The invariant: a user with a variant keeps it or drops to null, and a dropped user never returns. */
function checkSticky(history: Array<Array<string | null>>): void {
  const everHad = new Map<number, string>();
  const dropped = new Set<number>();
  const violations: string[] = [];
  for (const [step, snapshot] of history.entries()) {
    snapshot.forEach((variant, user) => {
      const had = everHad.get(user);
      if (variant === null) {
        if (had !== undefined) dropped.add(user);
        return;
      }
      if (dropped.has(user)) violations.push(`step ${step}: user-${user} came back as ${variant}`);
      if (had !== undefined && had !== variant)
        violations.push(`step ${step}: user-${user} moved ${had} -> ${variant}`);
      everHad.set(user, variant);
    });
  }
  expect(violations.slice(0, 5)).toEqual([]);
}

describe('bucket map relayout (pure)', () => {
  it('never moves a user between variants over random allocation sequences', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2000 }),
        allocationArb,
        fc.array(allocationArb, { minLength: 1, maxLength: 8 }),
        (bucketCount, first, changes) => {
          let map: BucketMap = initialBucketMap(first, bucketCount);
          const history = [assignments('pure', bucketCount, clientRanges(map))];
          for (const allocation of changes) {
            const next = relayout(map, allocation);
            if (!next.ok) continue;
            map = next.map;
            // every bucket belongs to at most one run, and runs stay inside the bucket space
            let cursor = 0;
            for (const run of map.runs) {
              expect(run.start).toBeGreaterThanOrEqual(cursor);
              expect(run.end).toBeLessThanOrEqual(bucketCount);
              cursor = run.end;
            }
            history.push(assignments('pure', bucketCount, clientRanges(map)));
          }
          checkSticky(history);
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);
});

describe('PUT /v1/experiments/{id} sequences (through the API)', () => {
  let h: Harness;
  let token: string;
  beforeAll(async () => {
    h = await startHarness();
    token = await h.token({ org_id: 'prop', org_role: 'admin' });
  });
  afterAll(() => h.close());

  it('never move any of 10,000 users from one non-null variant to another', async () => {
    let refused = 0;
    let applied = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(100, 1000, 10_000),
        allocationArb,
        fc.array(allocationArb, { minLength: 1, maxLength: 6 }),
        async (bucketCount, first, changes) => {
          const created = await h.call(token, {
            method: 'POST',
            url: '/v1/experiments',
            payload: experimentConfig({
              bucket_count: bucketCount,
              allocation: first,
              variants: undefined,
            }),
          });
          expect(created.statusCode).toBe(201);
          const { id, salt } = created.json();
          const history = [assignments(salt, bucketCount, created.json().bucket_ranges)];
          for (const allocation of changes) {
            const res = await h.call(token, {
              method: 'PUT',
              url: `/v1/experiments/${id}`,
              payload: { allocation },
            });
            if (res.statusCode === 400) {
              expect(res.json().type).toBe('/problems/allocation-not-sticky');
              refused++;
              continue;
            }
            expect(res.statusCode).toBe(200);
            applied++;
            history.push(assignments(salt, bucketCount, res.json().bucket_ranges));
          }
          checkSticky(history);
        },
      ),
      { numRuns: 25 },
    );
    // the generator must exercise both outcomes, or the property says little
    expect(applied).toBeGreaterThan(10);
    expect(refused).toBeGreaterThan(0);
  }, 300_000);
});
