import { count, desc, eq } from 'drizzle-orm';
import type { Database } from '../db/connect.ts';
import { ingestQuarantine } from '../db/schema.ts';

export interface QuarantineEntry {
  org_id: string;
  event_id: string;
  experiment_id: string | null;
  type: string | null;
  reason: string;
  quarantined_at: string;
}

/** Events the fold set aside, newest first (all orgs, or one): for the platform owner's health view. */
export async function listQuarantined(
  db: Database,
  options: { orgId?: string; limit?: number } = {},
): Promise<QuarantineEntry[]> {
  const found = await db
    .select()
    .from(ingestQuarantine)
    .where(options.orgId === undefined ? undefined : eq(ingestQuarantine.orgId, options.orgId))
    .orderBy(desc(ingestQuarantine.quarantinedAt), ingestQuarantine.eventId)
    .limit(options.limit ?? 100);
  return found.map((r) => ({
    org_id: r.orgId,
    event_id: r.eventId,
    experiment_id: r.experimentId,
    type: r.type,
    reason: r.reason,
    quarantined_at: r.quarantinedAt.toISOString(),
  }));
}

/** How many events each org has in quarantine (orgs with none are not listed). */
export async function quarantineCounts(db: Database): Promise<Map<string, number>> {
  const found = await db
    .select({ orgId: ingestQuarantine.orgId, n: count() })
    .from(ingestQuarantine)
    .groupBy(ingestQuarantine.orgId);
  return new Map(found.map((r) => [r.orgId, Number(r.n)]));
}
