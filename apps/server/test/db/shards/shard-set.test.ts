import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { shardSetOf } from '../../../src/db/shards/shard-set.ts';

interface ShardCase {
  org_id: string;
  user_id: string;
  shard_count: number;
  shard: number;
}

const cases: ShardCase[] = JSON.parse(
  readFileSync(new URL('../../../../../testdata/shards.json', import.meta.url), 'utf8'),
).cases;

/** Stand-ins told apart by identity only: the set never opens or reads them. */
const handles = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ dataDir: `shard-${i}` }) as unknown as DatabaseHandle);

describe('shardSetOf', () => {
  it('puts every vector user on the shard the frozen hash names', () => {
    expect(cases.length).toBeGreaterThan(10);
    for (const c of cases) {
      const set = shardSetOf(handles(c.shard_count));
      expect(set.positionOf(c.org_id, c.user_id)).toBe(c.shard);
      expect(set.of(c.org_id, c.user_id)).toBe(set.all[c.shard]);
    }
  });

  it('keeps everyone on the one database when there is one shard', () => {
    const [only] = handles(1);
    const set = shardSetOf([only as DatabaseHandle]);
    expect(set.of('any-org', 'any-user')).toBe(only);
    expect(set.positionOf('any-org', 'another')).toBe(0);
  });

  it('refuses an empty set', () => {
    expect(() => shardSetOf([])).toThrow(/at least one/);
  });
});
