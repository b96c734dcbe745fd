import { and, eq, lt, sql } from 'drizzle-orm';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/connect.ts';
import { eventClaims, events, orgs, retentionWatermarks } from '../../db/schema.ts';
import { onEveryShard } from '../../db/shards/every-shard.ts';
import { effectivePlan } from '../../domain/plans/effective-plan.ts';
import { PLAN_LIMITS } from '../../domain/plans/plans.ts';
import { DAY_MS } from '../../kernel/utc-day.ts';
import { purgeExpiredText } from './text-retention.ts';

/** Deletes one org's raw events before `cutoff` that are folded, on one shard; returns how many. */
async function purgeOnShard(db: Database, orgId: string, cutoff: Date): Promise<number> {
  const deleted = await db
    .delete(events)
    .where(
      and(
        eq(events.orgId, orgId),
        lt(events.occurredAt, cutoff),
        // an event not folded yet (e.g. an old one just imported) waits for the fold
        sql`not exists (select 1 from ingest_pending p where p.txid = ${events.txid})`,
      ),
    )
    .returning({ id: events.eventId });
  return deleted.length;
}

/**
 * Deletes raw events older than each org's plan retention once they are folded (on every
 * shard), the event
 * ids a Kafka log claimed before the same cutoff, and the object store's days of model text
 * before it (ARBITER_BLOB_URL). The per-user daily aggregates stay,
 * so an analysis window is never shortened; the watermark lets a run say its window reaches
 * before the oldest raw event (`retention_truncated`).
 */
export async function purgeExpiredEvents(
  ctx: Pick<Context, 'db' | 'shards' | 'modelText' | 'log'>,
  now: Date,
): Promise<number> {
  if (!(await everyShardAnswers(ctx))) return 0;
  let purged = 0;
  for (const org of await ctx.db.select({ id: orgs.id }).from(orgs)) {
    const { plan } = await effectivePlan(ctx.db, org.id, now);
    const cutoff = new Date(now.getTime() - PLAN_LIMITS[plan].retention_days * DAY_MS);
    const perShard = await onEveryShard(ctx.shards, (db) => purgeOnShard(db, org.id, cutoff));
    const deleted = perShard.reduce((a, b) => a + b, 0);
    purged += deleted;
    // The ids a Kafka log claimed at acceptance go with the same retention, so a retry is
    // recognised as long as on the single-node log, whose raw events are the claims.
    await ctx.db
      .delete(eventClaims)
      .where(and(eq(eventClaims.orgId, org.id), lt(eventClaims.claimedAt, cutoff)));
    await purgeExpiredText(ctx, org.id, cutoff);
    if (deleted > 0) {
      await ctx.db
        .insert(retentionWatermarks)
        .values({ orgId: org.id, purgedBefore: cutoff })
        .onConflictDoUpdate({
          target: retentionWatermarks.orgId,
          set: {
            purgedBefore: sql`greatest(${retentionWatermarks.purgedBefore}, excluded.purged_before)`,
          },
        });
    }
  }
  return purged;
}

/**
 * Retention waits for every shard: a pass that purged some shards and not others, and the
 * object store's text days beside them, would leave the watermark and the text out of step
 * with a shard's rows. Of several shards, one that does not answer postpones the whole purge to
 * the next nightly pass (a warning says which); one database alone fails as before shards.
 */
async function everyShardAnswers(ctx: Pick<Context, 'shards' | 'log'>): Promise<boolean> {
  if (!ctx.shards.sharded) return true;
  const answers = await onEveryShard(ctx.shards, (db) =>
    db.execute(sql`select 1`).then(
      () => null,
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    ),
  );
  const down = answers.flatMap((reason, position) => (reason === null ? [] : [position]));
  if (down.length === 0) return true;
  ctx.log.warn({ shards: down }, 'retention postponed: a shard of event data does not answer');
  return false;
}
