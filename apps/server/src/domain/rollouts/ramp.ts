import { and, eq, lte, sql } from 'drizzle-orm';
import type { Database, Transaction } from '../../db/connect.ts';
import { experimentRollouts, experiments } from '../../db/schema.ts';
import type { RolloutConfig } from '../../schemas/rollout.ts';
import { type AuditAction, recordAudit } from '../audit.ts';
import { loadCurrentVersion } from '../experiments/current-version.ts';
import type { WebhookEventType } from '../outbound-webhooks/event-types.ts';
import { enqueueWebhookEvent } from '../outbound-webhooks/outbox.ts';
import { DomainError } from '../outcomes.ts';
import { mintCoverage } from './coverage-version.ts';
import { guardEveryMs, holdMs } from './rollout-config.ts';

export type RolloutRow = typeof experimentRollouts.$inferSelect;
type Subject = { id: string; orgId: string; name: string };

const after = (now: Date, ms: number) => new Date(now.getTime() + ms);

/** When the hold of `step` ends, for a ramp that runs from `now`; null at the last step. */
export const advanceAtOf = (rollout: RolloutConfig, step: number, now: Date) =>
  step < rollout.steps.length - 1 ? after(now, holdMs(rollout, step)) : null;

/**
 * What a ramp move leaves behind in its own transaction: the audit entry (the actor null when
 * the server moved it) and, when the move has one, its outbound webhook event.
 */
export async function announce(
  tx: Transaction,
  subject: Subject,
  move: { action: AuditAction; event?: WebhookEventType; actor: string | null; now: Date },
  details: Record<string, unknown>,
): Promise<void> {
  await recordAudit(tx, {
    orgId: subject.orgId,
    actorUserId: move.actor,
    action: move.action,
    targetType: 'experiment',
    targetId: subject.id,
    details,
  });
  if (move.event === undefined) return;
  await enqueueWebhookEvent(
    tx,
    subject.orgId,
    { type: move.event, data: { experiment_id: subject.id, name: subject.name, ...details } },
    move.now,
  );
}

/**
 * Starts the ramp of an experiment that starts running with a rollout, in the start's
 * transaction: step 1's coverage (a new version when it differs), its hold, the guard's first
 * evaluation one interval away. A ramp that exists already is left as it is.
 */
export async function startRamp(
  tx: Transaction,
  subject: Subject,
  rollout: RolloutConfig,
  now: Date,
  actor: string | null,
): Promise<void> {
  const [inserted] = await tx
    .insert(experimentRollouts)
    .values({
      experimentId: subject.id,
      orgId: subject.orgId,
      state: 'running',
      step: 0,
      stepStartedAt: now,
      advanceAt: advanceAtOf(rollout, 0, now),
      guardAt: after(now, guardEveryMs(rollout)),
    })
    .onConflictDoNothing()
    .returning();
  if (inserted === undefined) return;
  const coverage = rollout.steps[0]?.coverage ?? 1;
  const version = await mintCoverage(tx, subject.id, coverage, actor);
  await announce(
    tx,
    subject,
    { action: 'rollout.started', actor, now },
    { step: 1, coverage, ...(version === null ? {} : { version }) },
  );
}

/** Changes the ramp of an experiment, stamping `updated_at`. */
export async function updateRamp(
  tx: Transaction,
  experimentId: string,
  change: Partial<Omit<RolloutRow, 'experimentId' | 'orgId' | 'updatedAt'>>,
): Promise<void> {
  await tx
    .update(experimentRollouts)
    .set({ ...change, updatedAt: sql`now()` })
    .where(eq(experimentRollouts.experimentId, experimentId));
}

/** Ends the ramp of an experiment that stops: nothing advances or evaluates from then on. */
export async function endRamp(tx: Transaction, experimentId: string): Promise<void> {
  await updateRamp(tx, experimentId, { state: 'ended', advanceAt: null, guardAt: null });
}

/**
 * Puts the ramp at `step` (0-based): that step's coverage as a new version, its hold from now
 * (none while paused), the row updated. The caller has the row locked and announces the move.
 */
export async function setStep(
  tx: Transaction,
  ramp: RolloutRow,
  rollout: RolloutConfig,
  step: number,
  now: Date,
  actor: string | null,
): Promise<{ coverage: number; version: number | null }> {
  const coverage = rollout.steps[step]?.coverage ?? 1;
  const version = await mintCoverage(tx, ramp.experimentId, coverage, actor);
  await updateRamp(tx, ramp.experimentId, {
    step,
    stepStartedAt: now,
    advanceAt: ramp.state === 'running' ? advanceAtOf(rollout, step, now) : null,
  });
  return { coverage, version };
}

/** The experiment of a ramp with its current version's rollout; null when it has none. */
export async function rampSubject(tx: Database, experimentId: string) {
  const [found] = await loadCurrentVersion(tx, eq(experiments.id, experimentId));
  const rollout = found?.version.config.rollout;
  if (found === undefined || rollout === undefined) return null;
  return { row: found.row, rollout };
}

type Ramp = { ramp: RolloutRow; subject: NonNullable<Awaited<ReturnType<typeof rampSubject>>> };

/**
 * The running ramps whose `dueAt` has passed (at most `limit`), locked `for update skip
 * locked` so that with several processes each row goes to one, each with its experiment. A
 * ramp whose experiment no longer runs is ended and left out.
 */
export async function lockDueRamps(
  tx: Transaction,
  dueAt: typeof experimentRollouts.advanceAt | typeof experimentRollouts.guardAt,
  now: Date,
  limit: number,
): Promise<Ramp[]> {
  const due = await tx
    .select()
    .from(experimentRollouts)
    .where(and(eq(experimentRollouts.state, 'running'), lte(dueAt, now)))
    .orderBy(dueAt)
    .limit(limit)
    .for('update', { skipLocked: true });
  const ramps: Ramp[] = [];
  for (const ramp of due) {
    const subject = await rampSubject(tx, ramp.experimentId);
    if (subject === null || subject.row.status !== 'running') await endRamp(tx, ramp.experimentId);
    else ramps.push({ ramp, subject });
  }
  return ramps;
}

/**
 * Advances every ramp whose hold has passed, once: the due rows are claimed with `for update
 * skip locked`, so with several processes each row goes to one, and the advance moves
 * `advance_at` on before the lock is released. Returns the orgs whose config changed.
 */
export async function advanceDue(db: Database, now: Date): Promise<string[]> {
  return db.transaction(async (tx) => {
    const orgs: string[] = [];
    for (const { ramp, subject } of await lockDueRamps(tx, experimentRollouts.advanceAt, now, 20)) {
      const step = ramp.step + 1;
      const { coverage, version } = await setStep(tx, ramp, subject.rollout, step, now, null);
      await announce(
        tx,
        subject.row,
        { action: 'rollout.advanced', event: 'experiment.rollout_advanced', actor: null, now },
        {
          from_step: ramp.step + 1,
          step: step + 1,
          steps: subject.rollout.steps.length,
          coverage,
          version,
        },
      );
      orgs.push(ramp.orgId);
    }
    return orgs;
  });
}

/** The ramp's answer to a move it cannot make from where it is. */
export function rampConflict(state: string, detail: string): DomainError {
  return new DomainError('rollout-conflict', `The ramp is ${state}: ${detail}`, { state });
}

/**
 * Refuses a PUT that changes the coverage or the rollout of an experiment whose ramp has
 * started (the ramp owns the coverage: pause, resume or jump), and one that gives a running
 * experiment a rollout (its users are all in; a ramp starts with the experiment).
 */
export async function checkRampChange(
  tx: Pick<Database, 'select'>,
  experiment: { id: string; status: string },
  before: { coverage?: number; rollout?: RolloutConfig },
  after: { coverage?: number; rollout?: RolloutConfig },
): Promise<void> {
  const rolloutChanged = JSON.stringify(before.rollout) !== JSON.stringify(after.rollout);
  if (!rolloutChanged && before.coverage === after.coverage) return;
  const [ramp] = await tx
    .select({ state: experimentRollouts.state })
    .from(experimentRollouts)
    .where(eq(experimentRollouts.experimentId, experiment.id));
  if (ramp !== undefined)
    throw rampConflict(
      ramp.state,
      'its ramp sets the coverage and keeps its rollout; pause, resume or jump to a step instead',
    );
  if (rolloutChanged && after.rollout !== undefined && experiment.status === 'running')
    throw rampConflict(
      'not started',
      'a ramp starts with the experiment (every user of a running one is already in); create a draft with the rollout and start it',
    );
}
