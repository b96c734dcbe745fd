import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { checkShardSet, ShardSetChanged } from '../../../src/db/shards/shard-registry.ts';
import { freshDatabase } from '../../support/database.ts';

// The shard set is recorded at its first start and every later start is held to it: another
// count, another order or a stranger at a position is refused before anything is read or written.

let control: DatabaseHandle;
let a: DatabaseHandle;
let b: DatabaseHandle;
let stranger: DatabaseHandle;
const shard = (h: DatabaseHandle, address: string) => ({ db: h.db, address });

beforeAll(async () => {
  [control, a, b, stranger] = await Promise.all([
    freshDatabase(process.env.ARBITER_TEST_DATABASE_URL),
    freshDatabase(process.env.ARBITER_TEST_DATABASE_URL),
    freshDatabase(process.env.ARBITER_TEST_DATABASE_URL),
    freshDatabase(process.env.ARBITER_TEST_DATABASE_URL),
  ]);
});
afterAll(async () => {
  await Promise.all([control, a, b, stranger].map((h) => h?.close()));
});

describe('the recorded shard set', () => {
  it('is recorded at the first start and accepted again as it was', async () => {
    await checkShardSet(control.db, [shard(a, 'host-a/db'), shard(b, 'host-b/db')]);
    await expect(
      checkShardSet(control.db, [shard(a, 'host-a/db'), shard(b, 'host-b/db')]),
    ).resolves.toBeUndefined();
  });

  it('refuses another count, naming both', async () => {
    const fewer = checkShardSet(control.db, [shard(a, 'host-a/db')]);
    await expect(fewer).rejects.toThrow(ShardSetChanged);
    await expect(checkShardSet(control.db, [shard(a, 'host-a/db')])).rejects.toThrow(
      /lists 1 shard\(s\) but this deployment was set up with 2/,
    );
    await expect(checkShardSet(control.db, [])).rejects.toThrow(/set up with 2/);
  });

  it('refuses another order, and a database that is no shard of it, naming the address', async () => {
    await expect(
      checkShardSet(control.db, [shard(b, 'host-b/db'), shard(a, 'host-a/db')]),
    ).rejects.toThrow(/names host-b\/db at position 0, which holds its shard 1/);
    await expect(
      checkShardSet(control.db, [shard(a, 'host-a/db'), shard(stranger, 'host-s/db')]),
    ).rejects.toThrow(/names host-s\/db at position 1, which holds a database that is no shard/);
  });

  it('refuses a shard of another deployment at a first start', async () => {
    const other = await freshDatabase(process.env.ARBITER_TEST_DATABASE_URL);
    try {
      await expect(
        checkShardSet(other.db, [shard(a, 'host-a/db'), shard(stranger, 'host-s/db')]),
      ).rejects.toThrow(/already belongs to a shard set/);
    } finally {
      await other.close();
    }
  });
});
