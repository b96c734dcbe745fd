import { eq } from 'drizzle-orm';
import type { Database } from '../../db/connect.ts';
import { orgs, planOverrides } from '../../db/schema.ts';
import { recordAudit } from '../audit.ts';
import { DomainError } from '../outcomes.ts';
import type { EffectivePlan } from './effective-plan.ts';
import { type PlanChangeActor, syncOrgPlan } from './plan-changes.ts';
import type { Plan } from './plans.ts';

/**
 * Pins an org's plan (a plan) or clears the pin (null), then re-resolves the plan. Audited as
 * `plan.override_changed` every time (so a pin that matches the billing plan still leaves a
 * trace) and as `plan.changed` with source `override` when the applied plan moves.
 */
export async function setPlanOverride(
  db: Database,
  orgId: string,
  plan: Plan | null,
  actor: PlanChangeActor,
  now: Date,
): Promise<EffectivePlan> {
  return db.transaction(async (tx) => {
    const [org] = await tx.select({ id: orgs.id }).from(orgs).where(eq(orgs.id, orgId));
    if (org === undefined) throw new DomainError('org-not-found', `No org has the id ${orgId}`);
    if (plan === null) {
      await tx.delete(planOverrides).where(eq(planOverrides.orgId, orgId));
    } else {
      const pin = { plan, setByEmail: actor.email ?? null, setAt: now };
      await tx
        .insert(planOverrides)
        .values({ orgId, ...pin })
        .onConflictDoUpdate({ target: planOverrides.orgId, set: pin });
    }
    await recordAudit(tx, {
      orgId,
      actorUserId: actor.userId,
      action: 'plan.override_changed',
      targetType: 'org',
      targetId: orgId,
      details: { plan, ...(actor.email ? { by: actor.email } : {}) },
    });
    const { effective } = await syncOrgPlan(tx, orgId, now, 'override', actor);
    return effective;
  });
}
