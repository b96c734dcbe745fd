import { and, eq, isNull, ne } from 'drizzle-orm';
import type { Database, Transaction } from '../../db/connect.ts';
import { orgs, planOverrides } from '../../db/schema.ts';
import { recordAudit } from '../audit.ts';
import { type EffectivePlan, effectivePlan } from './effective-plan.ts';

/** What moved the plan, as the audit trail records it. */
export type PlanChangeCause = 'override' | 'billing' | 'period_end';

export interface PlanChangeActor {
  userId: string | null;
  email?: string | null;
}

export interface PlanSync {
  effective: EffectivePlan;
  /** The applied plan moved (and `plan.changed` was written). */
  changed: boolean;
}

/**
 * Brings `orgs.plan` (the last plan applied, shown in listings) in line with the effective
 * plan and writes `plan.changed` when it moved. Runs inside the caller's transaction, so the
 * change that caused it and its trail land together. Nothing is deleted: only limits change.
 */
export async function syncOrgPlan(
  tx: Transaction,
  orgId: string,
  now: Date,
  cause: PlanChangeCause,
  actor: PlanChangeActor = { userId: null },
): Promise<PlanSync> {
  // The org row first: a concurrent change of the same org waits here, then resolves after it.
  const [org] = await tx
    .select({ plan: orgs.plan })
    .from(orgs)
    .where(eq(orgs.id, orgId))
    .for('update');
  const effective = await effectivePlan(tx, orgId, now);
  if (org === undefined || org.plan === effective.plan) return { effective, changed: false };
  await tx.update(orgs).set({ plan: effective.plan }).where(eq(orgs.id, orgId));
  await recordAudit(tx, {
    orgId,
    actorUserId: actor.userId,
    action: 'plan.changed',
    targetType: 'org',
    targetId: orgId,
    details: {
      from: org.plan,
      to: effective.plan,
      source: cause,
      plan_source: effective.source,
      ...(actor.email ? { by: actor.email } : {}),
    },
  });
  return { effective, changed: true };
}

/**
 * Applies downgrades whose paid period has ended (no webhook arrives at that instant):
 * every org on a paid plan without an override is re-resolved; returns the orgs changed.
 */
export async function applyPeriodEnds(db: Database, now: Date): Promise<string[]> {
  const candidates = await db
    .select({ id: orgs.id })
    .from(orgs)
    .leftJoin(planOverrides, eq(planOverrides.orgId, orgs.id))
    .where(and(ne(orgs.plan, 'free'), isNull(planOverrides.orgId)));
  const changed: string[] = [];
  for (const { id } of candidates) {
    const sync = await db.transaction((tx) => syncOrgPlan(tx, id, now, 'period_end'));
    if (sync.changed) changed.push(id);
  }
  return changed;
}
