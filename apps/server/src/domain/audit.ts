import { and, desc, eq } from 'drizzle-orm';
import type { Database } from '../db/connect.ts';
import { auditLog, users } from '../db/schema.ts';

export type AuditAction =
  | 'experiment.created'
  | 'experiment.updated'
  | 'experiment.method_overridden'
  | 'experiment.test_event'
  | 'experiment.start'
  | 'experiment.stop'
  | 'experiment.archive'
  | 'experiment.unarchive'
  | 'rollout.started'
  | 'rollout.advanced'
  | 'rollout.paused'
  | 'rollout.resumed'
  | 'rollout.jumped'
  | 'rollout.rolled_back'
  | 'key.rotated'
  | 'key.revealed'
  | 'webhook_secret.rotated'
  | 'webhook_endpoint.created'
  | 'webhook_endpoint.updated'
  | 'webhook_endpoint.deleted'
  | 'webhook_endpoint.secret_rotated'
  | 'webhook_endpoint.disabled'
  | 'webhook_delivery.retried'
  | 'plan.changed'
  | 'plan.override_changed'
  | 'guardrail.violated'
  | 'dataset.created'
  | 'dataset.items_uploaded'
  | 'dataset.item_deleted'
  | 'offline_run.created'
  | 'saved_group.created'
  | 'saved_group.updated'
  | 'layer.created'
  | 'layer.buckets_changed'
  | 'holdout.created'
  | 'holdout.updated'
  | 'model_price.put'
  | 'model_price.deleted'
  | 'model_calls.repriced'
  | 'prompt.created'
  | 'prompt.version_created'
  | 'prompt.label_moved';

export interface AuditInput {
  orgId: string;
  actorUserId: string | null;
  action: AuditAction;
  targetType: string;
  targetId: string;
  details?: Record<string, unknown>;
}

const rowOf = (entry: AuditInput) => ({
  orgId: entry.orgId,
  actorUserId: entry.actorUserId,
  action: entry.action,
  targetType: entry.targetType,
  targetId: entry.targetId,
  details: entry.details ?? {},
});

/** Written inside the caller's transaction, so a mutation and its trail land together. */
export async function recordAudit(db: Pick<Database, 'insert'>, entry: AuditInput): Promise<void> {
  await db.insert(auditLog).values(rowOf(entry));
}

/**
 * An entry recorded once: skipped when the unique index `audit_log_guardrail_once` already
 * holds it (a guardrail violation of one run label, metric and treatment), so re-running a
 * night does not repeat it.
 */
/** Whether the entry is new: false when the same one was recorded before. */
export async function recordAuditOnce(
  db: Pick<Database, 'insert'>,
  entry: AuditInput & { action: 'guardrail.violated' },
): Promise<boolean> {
  const stored = await db
    .insert(auditLog)
    .values(rowOf(entry))
    .onConflictDoNothing()
    .returning({ id: auditLog.id });
  return stored.length > 0;
}

export async function listAudit(
  db: Database,
  orgId: string,
  targetId: string | undefined,
  limit: number,
) {
  const where =
    targetId === undefined
      ? eq(auditLog.orgId, orgId)
      : and(eq(auditLog.orgId, orgId), eq(auditLog.targetId, targetId));
  const found = await db
    .select({
      id: auditLog.id,
      action: auditLog.action,
      targetType: auditLog.targetType,
      targetId: auditLog.targetId,
      details: auditLog.details,
      createdAt: auditLog.createdAt,
      actorId: users.id,
      actorName: users.name,
      actorEmail: users.email,
    })
    .from(auditLog)
    .leftJoin(users, eq(users.id, auditLog.actorUserId))
    .where(where)
    .orderBy(desc(auditLog.seq))
    .limit(limit);
  return found.map((r) => ({
    id: r.id,
    action: r.action,
    target_type: r.targetType,
    target_id: r.targetId,
    details: r.details,
    created_at: r.createdAt.toISOString(),
    actor: r.actorId === null ? null : { id: r.actorId, name: r.actorName, email: r.actorEmail },
  }));
}
