import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashUser, shardOf } from '../src/index.ts';

interface ShardCase {
  org_id: string;
  user_id: string;
  shard_count: number;
  hash: number;
  shard: number;
}

const file = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../../testdata/shards.json', import.meta.url)), 'utf8'),
) as { specVersion: string; cases: ShardCase[] };

describe('shard vectors (testdata/shards.json, made with Python mmh3)', () => {
  it('is version 1 and covers several counts and non-ASCII ids', () => {
    expect(file.specVersion).toBe('1');
    expect(new Set(file.cases.map((c) => c.shard_count)).size).toBeGreaterThanOrEqual(5);
    expect(file.cases.some((c) => /[^\x20-\x7e]/.test(c.user_id))).toBe(true);
  });
  for (const c of file.cases) {
    it(`${JSON.stringify(c.user_id).slice(0, 24)} of ${c.org_id.slice(0, 8)} over ${c.shard_count}`, () => {
      expect(hashUser(`shard:${c.org_id}`, c.user_id)).toBe(c.hash);
      expect(shardOf(c.org_id, c.user_id, c.shard_count)).toBe(c.shard);
    });
  }
});

describe('shardOf', () => {
  const org = '0b6f1c9e-7c1a-4d3e-9a43-0c1a2b3c4d5e';

  it('splits shard s into s and s + n when the count doubles', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 64 }),
        fc.integer({ min: 1, max: 64 }),
        (user, n) => {
          const before = shardOf(org, user, n);
          const after = shardOf(org, user, 2 * n);
          expect(after === before || after === before + n).toBe(true);
        },
      ),
    );
  });

  it('spreads users about evenly over the shards', () => {
    const counts = [0, 0, 0];
    for (let i = 0; i < 30_000; i++) counts[shardOf(org, `user-${i}`, 3)]! += 1;
    for (const count of counts) expect(Math.abs(count - 10_000)).toBeLessThan(500);
  });

  it('is independent of an experiment bucketing the same user with the org id as its salt', () => {
    const users = Array.from({ length: 2_000 }, (_, i) => `user-${i}`);
    const same = users.filter((u) => shardOf(org, u, 2) === hashUser(org, u) % 2).length;
    expect(Math.abs(same - 1_000)).toBeLessThan(150);
  });

  it('refuses a count that is not a positive integer', () => {
    for (const n of [0, -1, 1.5, Number.NaN])
      expect(() => shardOf(org, 'u', n)).toThrow(RangeError);
  });
});
