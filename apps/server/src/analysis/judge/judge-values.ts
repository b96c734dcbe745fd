import { and, avg, between, eq } from 'drizzle-orm';
import type { Database } from '../../db/connect.ts';
import { judgeScores } from '../../db/schema.ts';

/**
 * Per variant, each scored user's mean judge score over the window (inclusive UTC dates,
 * YYYY-MM-DD, like the other metrics' windows): the user is the unit of analysis. Users
 * come sorted by id so a seeded resample sees them in a stable order.
 */
export async function judgeUserValues(
  db: Database,
  experimentId: string,
  metric: string,
  windowStart: string,
  windowEnd: string,
): Promise<Map<string, Array<{ userId: string; value: number }>>> {
  const rows = await db
    .select({
      variant: judgeScores.variant,
      userId: judgeScores.userId,
      value: avg(judgeScores.score),
    })
    .from(judgeScores)
    .where(
      and(
        eq(judgeScores.experimentId, experimentId),
        eq(judgeScores.metric, metric),
        between(judgeScores.day, windowStart, windowEnd),
      ),
    )
    .groupBy(judgeScores.variant, judgeScores.userId)
    .orderBy(judgeScores.variant, judgeScores.userId);
  const arms = new Map<string, Array<{ userId: string; value: number }>>();
  for (const row of rows) {
    const list = arms.get(row.variant) ?? [];
    list.push({ userId: row.userId, value: Number(row.value) });
    arms.set(row.variant, list);
  }
  return arms;
}
