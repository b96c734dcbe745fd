import { isNull } from 'drizzle-orm';
import type { Database } from '../../db/connect.ts';
import { orgs } from '../../db/schema.ts';
import type { DirectoryOrg, IdentityDirectory } from '../../kernel/ports.ts';
import { DomainError } from '../outcomes.ts';
import { effectivePlan } from './effective-plan.ts';
import { type Plan, seatCap } from './plans.ts';

export interface SeatCapChange {
  /** Internal org id; null for an org the provider has and Arbiter has not seen yet (free). */
  org_id: string | null;
  external_id: string;
  plan: Plan;
  from: number | null;
  to: number | null;
}

export interface SeatResyncReport {
  changed: SeatCapChange[];
  unchanged: number;
}

/** Live orgs' internal ids by the provider's org id. */
async function orgIdsByExternalId(db: Database): Promise<Map<string, string>> {
  const rows = await db
    .select({ id: orgs.id, externalId: orgs.externalId })
    .from(orgs)
    .where(isNull(orgs.deletedAt));
  return new Map(rows.map((r) => [r.externalId, r.id]));
}

function providerFailed(error: unknown, changed: SeatCapChange[]): DomainError {
  const reason = error instanceof Error ? error.message : String(error);
  return new DomainError(
    'identity-provider-failed',
    `Seat resync stopped after ${changed.length} change(s): ${reason}`,
    { changed },
  );
}

/**
 * Pushes every org's seat cap (from its effective plan) to the identity provider. Only orgs whose cap
 * at the provider differs are changed, so a second run changes nothing; an org the provider
 * has and Arbiter has not seen yet is on free.
 */
export async function resyncSeatCaps(
  db: Database,
  directory: IdentityDirectory | null,
  now: Date,
): Promise<SeatResyncReport> {
  if (directory === null)
    throw new DomainError(
      'identity-provider-not-configured',
      'Set ARBITER_CLERK_SECRET_KEY (and ARBITER_CLERK_API_URL) to push seat caps to the identity provider',
    );
  const changed: SeatCapChange[] = [];
  let remote: DirectoryOrg[];
  try {
    remote = await directory.listOrgs();
  } catch (error) {
    throw providerFailed(error, changed);
  }
  const local = await orgIdsByExternalId(db);
  for (const org of remote) {
    const orgId = local.get(org.externalId) ?? null;
    const plan = orgId === null ? 'free' : (await effectivePlan(db, orgId, now)).plan;
    const cap = seatCap(plan);
    if (cap === org.seatCap) continue;
    try {
      await directory.setSeatCap(org.externalId, cap);
    } catch (error) {
      throw providerFailed(error, changed);
    }
    const change = { org_id: orgId, external_id: org.externalId, plan };
    changed.push({ ...change, from: org.seatCap, to: cap });
  }
  return { changed, unchanged: remote.length - changed.length };
}
