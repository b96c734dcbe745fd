import { randomUUID } from 'node:crypto';
import { asc, eq, sql } from 'drizzle-orm';
import type { Database } from '../connect.ts';
import { sqlStateOf, UNDEFINED_TABLE } from '../pg-error-codes.ts';
import { shardIdentity, shardSet } from '../schema.ts';

/** The shards given differ from the shard set the control database recorded: the start is refused. */
export class ShardSetChanged extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ShardSetChanged';
  }
}

export interface ShardToCheck {
  db: Database;
  /** Host, port and database, for the refusal's sentence. */
  address: string;
}

type Identity = { shardId: string; position: number; shardCount: number };

async function identityOf(db: Database): Promise<Identity | null> {
  const [row] = await db.select().from(shardIdentity).where(eq(shardIdentity.id, 1));
  return row ?? null;
}

/** The recorded set; none on a database the migrations have not reached (its probes say so). */
async function recordedSet(control: Database) {
  try {
    return await control.select().from(shardSet).orderBy(asc(shardSet.position));
  } catch (error) {
    if (sqlStateOf(error) === UNDEFINED_TABLE) return [];
    throw error;
  }
}

/** Gives each shard its identity and records the set in the control database, in one lock. */
async function recordFirst(control: Database, shards: readonly ShardToCheck[]): Promise<void> {
  await control.transaction(async (tx) => {
    await tx.execute(sql`lock table shard_set in exclusive mode`);
    if ((await tx.select().from(shardSet).limit(1)).length > 0) return;
    for (const [position, shard] of shards.entries()) {
      const shardId = randomUUID();
      const identity = { id: 1, shardId, position, shardCount: shards.length };
      await shard.db.insert(shardIdentity).values(identity).onConflictDoNothing();
      const kept = await identityOf(shard.db);
      if (kept?.shardId !== shardId)
        throw new ShardSetChanged(
          `the shard at position ${position} (${shard.address}) already belongs to a shard set (position ${kept?.position} of ${kept?.shardCount}), but this control database recorded none; give each deployment databases of its own`,
        );
      await tx.insert(shardSet).values({ position, shardId, shardCount: shards.length });
    }
  });
}

/**
 * Holds the shard set to what the first migrate recorded: the same count, and at each position
 * the database that was there (its identity row). Without ARBITER_SHARD_URLS (`shards` empty)
 * nothing is recorded, and a deployment that recorded shards may not start without them.
 */
export async function checkShardSet(
  control: Database,
  shards: readonly ShardToCheck[],
): Promise<void> {
  const recorded = await recordedSet(control);
  if (recorded.length === 0) {
    if (shards.length > 0) await recordFirst(control, shards);
    return;
  }
  if (recorded.length !== shards.length)
    throw new ShardSetChanged(
      `ARBITER_SHARD_URLS lists ${shards.length} shard(s) but this deployment was set up with ${recorded.length}; the shard count is fixed (docs/scale-out.md says how to grow)`,
    );
  for (const [position, shard] of shards.entries()) {
    const identity = await identityOf(shard.db);
    if (identity?.shardId !== recorded[position]?.shardId) {
      const found =
        identity === null ? 'a database that is no shard of it' : `its shard ${identity.position}`;
      throw new ShardSetChanged(
        `ARBITER_SHARD_URLS names ${shard.address} at position ${position}, which holds ${found}; the order of the shards is fixed`,
      );
    }
  }
}
