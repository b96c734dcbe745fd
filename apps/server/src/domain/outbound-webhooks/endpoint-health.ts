import { and, eq, isNull, lte } from 'drizzle-orm';
import type { Database } from '../../db/connect.ts';
import { webhookEndpoints } from '../../db/schema.ts';
import { recordAudit } from '../audit.ts';

/**
 * An endpoint that has failed every attempt for this long is disabled (as Svix does after five
 * days): its events would only pile up, and its owner is better told by a disabled endpoint in
 * the dashboard than by an ever-growing queue. Re-enabling it starts the count again.
 */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3_600_000;

export const DISABLED_REASON = 'every attempt failed for 5 days';

/**
 * Notes one attempt's outcome on its endpoint: a success clears the failing streak; a failure
 * starts it, or, when it began DISABLE_AFTER_FAILING_MS ago, disables the endpoint (audited,
 * with no actor: the server did it).
 */
export async function noteAttempt(db: Database, endpointId: string, ok: boolean, now: Date) {
  const byId = eq(webhookEndpoints.id, endpointId);
  if (ok) {
    await db.update(webhookEndpoints).set({ failingSince: null }).where(byId);
    return;
  }
  await db
    .update(webhookEndpoints)
    .set({ failingSince: now })
    .where(and(byId, isNull(webhookEndpoints.failingSince)));
  const cutoff = new Date(now.getTime() - DISABLE_AFTER_FAILING_MS);
  await db.transaction(async (tx) => {
    const [disabled] = await tx
      .update(webhookEndpoints)
      .set({ enabled: false, disabledReason: DISABLED_REASON, updatedAt: now })
      .where(
        and(byId, eq(webhookEndpoints.enabled, true), lte(webhookEndpoints.failingSince, cutoff)),
      )
      .returning({ orgId: webhookEndpoints.orgId, failingSince: webhookEndpoints.failingSince });
    if (!disabled) return;
    await recordAudit(tx, {
      orgId: disabled.orgId,
      actorUserId: null,
      action: 'webhook_endpoint.disabled',
      targetType: 'webhook_endpoint',
      targetId: endpointId,
      details: { reason: DISABLED_REASON, failing_since: disabled.failingSince?.toISOString() },
    });
  });
}

/** What a person's re-enabling resets: the streak and the server's reason. */
export const healthReset = { failingSince: null, disabledReason: null } as const;
