import { and, eq, inArray, sql } from 'drizzle-orm';
import { rows } from '../../src/db/connect.ts';
import { events, usageCounters } from '../../src/db/schema.ts';
import { usageMonth } from '../../src/domain/usage-month.ts';
import type { Harness } from './harness.ts';

/** What the hardening tests look at after a request: stored rows, the meter, the aggregates. */
export function ingestProbe(h: Harness) {
  return {
    send: (key: string, list: unknown[]) =>
      h.ingest(key, { method: 'POST', url: '/v1/events', payload: { events: list } }),
    importAs: (key: string, type: string, payload: string) =>
      h.ingest(key, {
        method: 'POST',
        url: '/v1/events/import',
        headers: { 'content-type': type },
        payload,
      }),
    /** Ids among `ids` that are stored. */
    async storedIds(ids: string[]): Promise<string[]> {
      const found = await h.ctx.db
        .select({ id: events.eventId })
        .from(events)
        .where(inArray(events.eventId, ids));
      return found.map((r) => r.id).sort();
    },
    /** Events metered to the org this UTC month. */
    async metered(orgId: string): Promise<number> {
      const [row] = await h.ctx.db
        .select({ n: sql<number>`coalesce(sum(${usageCounters.events}), 0)` })
        .from(usageCounters)
        .where(
          and(eq(usageCounters.orgId, orgId), eq(usageCounters.month, usageMonth(new Date()))),
        );
      return Number(row?.n ?? 0);
    },
    /** Exposures folded into the aggregates for one user (any experiment). */
    async foldedExposures(userId: string): Promise<number> {
      const [row] = await rows<{ n: number }>(
        h.ctx.db,
        sql`select coalesce(sum(exposures), 0)::int as n from user_day_stats where user_id = ${userId}`,
      );
      return Number(row?.n ?? 0);
    },
  };
}

export const exposureOf = (experimentId: string, id: string, user: string) => ({
  event_id: id,
  type: 'exposure',
  experiment_id: experimentId,
  user_id: user,
  timestamp: new Date().toISOString(),
});
