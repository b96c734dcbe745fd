import { and, eq, inArray, sql } from 'drizzle-orm';
import { rows } from '../../src/db/connect.ts';
import { events, usageCounters } from '../../src/db/schema.ts';
import { usageMonth } from '../../src/domain/billing/usage-month.ts';
import { signBusinessEvent } from '../../src/http/business-signature.ts';
import { type Harness, startHarness } from './harness.ts';
import { storedEvents } from './stored-events.ts';

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
    /** POST /v1/business-events with `raw` signed by the org's webhook secret. */
    signedBusinessEvent: (secret: string, raw: string) =>
      h.app.inject({
        method: 'POST',
        url: '/v1/business-events',
        headers: {
          'content-type': 'application/json',
          'arbiter-signature': signBusinessEvent(secret, raw, Math.floor(Date.now() / 1000)),
        },
        payload: raw,
      }),
    /** Ids among `ids` that are stored. */
    async storedIds(ids: string[]): Promise<string[]> {
      const found = await storedEvents(h, inArray(events.eventId, ids));
      return found.map((r) => r.eventId).sort();
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
      let total = 0;
      for (const shard of h.ctx.shards.all) {
        const [row] = await rows<{ n: number }>(
          shard.db,
          sql`select coalesce(sum(exposures), 0)::int as n from user_day_stats where user_id = ${userId}`,
        );
        total += Number(row?.n ?? 0);
      }
      return total;
    },
  };
}

/** Folds every stored event: the fold waits for no other transaction, so one pass of the fold does it. */
export async function foldEverything(h: Harness): Promise<void> {
  await h.ctx.worker.foldAll();
}

export const exposureOf = (experimentId: string, id: string, user: string) => ({
  event_id: id,
  type: 'exposure',
  experiment_id: experimentId,
  user_id: user,
  timestamp: new Date().toISOString(),
});

type Org = Awaited<ReturnType<Harness['org']>>;

/**
 * A harness with two orgs, `<prefix>-acme` (experiment `<prefix>-exp`) and `<prefix>-other`
 * (experiment `<prefix>-other-exp`): the second shows that the first's trouble holds it back in nothing.
 */
export interface TwoOrgs {
  h: Harness;
  probe: ReturnType<typeof ingestProbe>;
  acme: Org;
  other: Org;
  exp: string;
  otherExp: string;
}

export async function twoOrgs(prefix: string): Promise<TwoOrgs> {
  const h = await startHarness();
  const acme = await h.org(`${prefix}-acme`);
  const other = await h.org(`${prefix}-other`);
  return {
    h,
    probe: ingestProbe(h),
    acme,
    other,
    exp: await h.experiment(acme.admin, { name: `${prefix}-exp` }),
    otherExp: await h.experiment(other.admin, { name: `${prefix}-other-exp` }),
  };
}
