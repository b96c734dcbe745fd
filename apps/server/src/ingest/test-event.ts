import { randomUUID } from 'node:crypto';
import { and, asc, eq, gt } from 'drizzle-orm';
import type { Context } from '../context.ts';
import type { Database } from '../db/connect.ts';
import { auditLog } from '../db/schema.ts';
import { recordAudit } from '../domain/audit.ts';
import type { Caller } from '../domain/identity/identity.ts';
import { type AcceptDeps, acceptEvents } from './accept.ts';
import { IngestError } from './outcomes.ts';
import { refuseIfNothingAccepted } from './refusal.ts';

export const TEST_EVENTS_PER_HOUR = 5;
export const TEST_USER_PREFIX = 'svc-test-';
const HOUR_MS = 3600_000;

/** Refuses a sixth test event of the hour, counted from the audit trail. */
async function checkHourlyCap(
  db: Database,
  orgId: string,
  experimentId: string,
  now: Date,
): Promise<void> {
  const recent = await db
    .select({ at: auditLog.createdAt })
    .from(auditLog)
    .where(
      and(
        eq(auditLog.orgId, orgId),
        eq(auditLog.targetId, experimentId),
        eq(auditLog.action, 'experiment.test_event'),
        gt(auditLog.createdAt, new Date(now.getTime() - HOUR_MS)),
      ),
    )
    .orderBy(asc(auditLog.createdAt));
  if (recent.length >= TEST_EVENTS_PER_HOUR) {
    const freesAt =
      (recent[recent.length - TEST_EVENTS_PER_HOUR] as { at: Date }).at.getTime() + HOUR_MS;
    throw new IngestError(
      'test-event-limit',
      `At most ${TEST_EVENTS_PER_HOUR} test events per experiment per hour; the next one is possible at ${new Date(freesAt).toISOString()}`,
      {},
      Math.max(1, Math.ceil((freesAt - now.getTime()) / 1000)),
    );
  }
}

/**
 * One exposure through the real ingest path, for the control arm, by a reserved test user.
 * The hourly cap is counted from the audit trail, which records every test event anyway.
 */
export async function sendTestEvent(
  ctx: AcceptDeps & Pick<Context, 'db'>,
  caller: Caller,
  idOrName: string,
) {
  const now = ctx.clock.now();
  const state = await ctx.orgState.get(caller.orgId);
  // The org state resolves names and ids alike, as the dashboard paths do.
  const experiment = state.lookup.get(idOrName);
  if (experiment?.kind !== 'experiment') {
    throw new IngestError(
      'experiment-not-found',
      `No experiment with the id or name "${idOrName}" in your org`,
    );
  }
  const experimentId = experiment.id;
  await checkHourlyCap(ctx.db, caller.orgId, experimentId, now);
  const event = {
    event_id: randomUUID(),
    type: 'exposure',
    experiment_id: experimentId,
    user_id: `${TEST_USER_PREFIX}${randomUUID()}`,
    timestamp: now.toISOString(),
    variant: experiment.control,
    metadata: { arbiter_test: true },
  };
  const outcome = await acceptEvents(ctx, caller.orgId, [event]);
  if (outcome.accepted !== 1) {
    refuseIfNothingAccepted(outcome, () => '#');
  }
  await recordAudit(ctx.db, {
    orgId: caller.orgId,
    actorUserId: caller.userId,
    action: 'experiment.test_event',
    targetType: 'experiment',
    targetId: experimentId,
    details: { event_id: event.event_id, user_id: event.user_id, variant: event.variant },
  });
  return { event_id: event.event_id, user_id: event.user_id, variant: event.variant };
}
