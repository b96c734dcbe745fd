import { and, eq, isNotNull, notExists, or, sql } from 'drizzle-orm';
import type { Database } from '../../db/connect.ts';
import { events, judgeScores } from '../../db/schema.ts';
import { type EventShards, onEveryShard } from '../../db/shards/every-shard.ts';
import { MODEL_TEXT_COLUMNS } from '../../domain/events-export/model-text.ts';

/** A model call to score; its text is in the row, or the row says where the store has it. */
export interface JudgeCandidate {
  eventId: string;
  userId: string;
  variant: string;
  occurredAt: Date;
  prompt: string | null;
  response: string | null;
  textKey: string | null;
  promptBytes: number | null;
  responseBytes: number | null;
  textSha256: string | null;
}

type Target = { orgId: string; experimentId: string };

/** The order of the sample: md5 of the event id, hex, then the id (unique in the org). */
const drawn = (a: { rank: string; eventId: string }, b: { rank: string; eventId: string }) =>
  a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : a.eventId < b.eventId ? -1 : 1;

/**
 * Model calls of the experiment not yet scored for the metric, in md5(event_id) order: a
 * fixed pseudo-random order, so a re-run picks the same sample and arms are drawn alike. Each
 * shard gives its first `limit` in that order (its users' calls, next to their scores) and the
 * first `limit` of them all are the ones one database would give.
 */
export async function sampleUnscored(
  shards: EventShards,
  target: Target,
  metric: string,
  limit: number,
): Promise<JudgeCandidate[]> {
  const perShard = await onEveryShard(shards, (db) => shardSample(db, target, metric, limit));
  if (perShard.length === 1) return (perShard[0] ?? []).map(({ rank: _, ...c }) => c);
  return perShard
    .flat()
    .sort(drawn)
    .slice(0, limit)
    .map(({ rank: _, ...c }) => c);
}

async function shardSample(db: Database, target: Target, metric: string, limit: number) {
  const rows = await db
    .select({
      rank: sql<string>`md5(${events.eventId})`,
      eventId: events.eventId,
      userId: events.userId,
      variant: events.variant,
      occurredAt: events.occurredAt,
      ...MODEL_TEXT_COLUMNS,
    })
    .from(events)
    .where(
      and(
        eq(events.orgId, target.orgId),
        eq(events.experimentId, target.experimentId),
        eq(events.type, 'model_call'),
        // a prompt and a response, in the row or in the store
        or(isNotNull(events.prompt), isNotNull(events.promptBytes)),
        or(isNotNull(events.response), isNotNull(events.responseBytes)),
        isNotNull(events.variant),
        notExists(
          db
            .select({ one: sql`1` })
            .from(judgeScores)
            .where(
              and(
                eq(judgeScores.orgId, events.orgId),
                eq(judgeScores.experimentId, events.experimentId),
                eq(judgeScores.metric, metric),
                eq(judgeScores.eventId, events.eventId),
              ),
            ),
        ),
      ),
    )
    .orderBy(sql`md5(${events.eventId})`, events.eventId)
    .limit(limit);
  return rows as Array<JudgeCandidate & { rank: string }>;
}
