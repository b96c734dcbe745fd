import { sql } from 'drizzle-orm';
import type { Context } from '../../context.ts';
import { rows } from '../../db/connect.ts';
import { utcDay } from '../../kernel/utc-day.ts';

/**
 * Deletes the object store's day prefixes of an org's model text past its retention: every
 * day that ended before `cutoff`, except a day a stored row still refers to (an event not
 * folded yet, which the event retention keeps too). A store that cannot be reached is left
 * for the next run: what it keeps a day longer costs nothing but space. Returns the objects
 * deleted.
 */
export async function purgeExpiredText(
  ctx: Pick<Context, 'db' | 'modelText' | 'log'>,
  orgId: string,
  cutoff: Date,
): Promise<number> {
  const store = ctx.modelText;
  if (store === null) return 0;
  const lastKept = utcDay(cutoff);
  try {
    const expired = (await store.days(orgId)).filter((day) => day < lastKept);
    if (expired.length === 0) return 0;
    const waiting = await rows<{ day: string }>(
      ctx.db,
      sql`select distinct to_char(occurred_at at time zone 'UTC', 'YYYY-MM-DD') as day
        from events
        where org_id = ${orgId}::uuid and occurred_at < ${`${lastKept}T00:00:00.000Z`}::timestamptz
          and text_key is not null`,
    );
    const kept = new Set(waiting.map((w) => w.day));
    let deleted = 0;
    for (const day of expired) if (!kept.has(day)) deleted += await store.deleteDay(orgId, day);
    return deleted;
  } catch (error) {
    ctx.log.warn({ err: error, orgId }, 'model text retention: the object store did not answer');
    return 0;
  }
}
