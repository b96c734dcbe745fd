import { eq } from 'drizzle-orm';
import type { Database, Transaction } from '../../db/connect.ts';
import { experimentRollouts, experiments } from '../../db/schema.ts';
import { addressed, notFound } from '../experiments/service.ts';
import type { Caller } from '../identity/identity.ts';
import { DomainError } from '../outcomes.ts';
import {
  advanceAtOf,
  announce,
  type RolloutRow,
  rampConflict,
  rampSubject,
  setStep,
  updateRamp,
} from './ramp.ts';
import { guardEveryMs } from './rollout-config.ts';

/** What a user asks of a ramp. `step` is 1-based, as the ramp shows its steps. */
export type RampMove =
  | { kind: 'pause'; reason?: string }
  | { kind: 'resume' }
  | { kind: 'jump'; step: number };

/** The org's experiment's ramp row, locked; 404 when the experiment or its ramp is absent. */
export async function lockedRamp(tx: Transaction, orgId: string, idOrName: string) {
  const [experiment] = await tx
    .select({ id: experiments.id })
    .from(experiments)
    .where(addressed(orgId, idOrName));
  if (experiment === undefined) throw notFound(idOrName);
  const [ramp] = await tx
    .select()
    .from(experimentRollouts)
    .where(eq(experimentRollouts.experimentId, experiment.id))
    .for('update');
  if (ramp === undefined)
    throw new DomainError(
      'rollout-not-found',
      `The experiment "${idOrName}" has no ramp: it has no rollout, or it has not started`,
    );
  return ramp;
}

/**
 * Pauses the ramp where it is (the coverage stays, the hold stops), as the guard does on a
 * violation; audited and sent as `rollout.paused`.
 */
async function pause(tx: Transaction, ramp: RolloutRow, reason: string | null) {
  if (ramp.state !== 'running') throw rampConflict(ramp.state, 'only a running ramp pauses');
  await updateRamp(tx, ramp.experimentId, {
    state: 'paused',
    advanceAt: null,
    pausedBy: 'user',
    pausedReason: reason,
  });
  return {
    action: 'rollout.paused' as const,
    event: 'rollout.paused' as const,
    details: { step: ramp.step + 1, by: 'user', reason },
  };
}

/** Resumes a paused ramp: the current step's hold starts again in full, the guard's interval too. */
async function resume(
  tx: Transaction,
  ramp: RolloutRow,
  subject: NonNullable<Awaited<ReturnType<typeof rampSubject>>>,
  now: Date,
) {
  if (ramp.state !== 'paused') throw rampConflict(ramp.state, 'only a paused ramp resumes');
  await updateRamp(tx, ramp.experimentId, {
    state: 'running',
    stepStartedAt: now,
    advanceAt: advanceAtOf(subject.rollout, ramp.step, now),
    guardAt: new Date(now.getTime() + guardEveryMs(subject.rollout)),
    pausedBy: null,
    pausedReason: null,
  });
  return { action: 'rollout.resumed' as const, details: { step: ramp.step + 1 } };
}

/**
 * Makes a user's move on the ramp in one transaction: the row locked, the move checked against
 * the ramp's state (409 otherwise), written and audited. Returns the org's id: its config may
 * have changed.
 */
export async function moveRamp(
  db: Database,
  caller: Caller,
  idOrName: string,
  move: RampMove,
  now: Date,
): Promise<void> {
  await db.transaction(async (tx) => {
    const ramp = await lockedRamp(tx, caller.orgId, idOrName);
    const subject = await rampSubject(tx, ramp.experimentId);
    if (ramp.state === 'ended' || subject === null)
      throw rampConflict('ended', 'the experiment stopped, and its ramp with it');
    const done =
      move.kind === 'pause'
        ? await pause(tx, ramp, move.reason ?? null)
        : move.kind === 'resume'
          ? await resume(tx, ramp, subject, now)
          : await jump(tx, caller, ramp, subject, move.step, now);
    await announce(
      tx,
      subject.row,
      {
        action: done.action,
        ...('event' in done ? { event: done.event } : {}),
        actor: caller.userId,
        now,
      },
      done.details,
    );
  });
}

/** Puts the ramp at a step, forward or back (back takes users out: docs/rollouts.md). */
async function jump(
  tx: Transaction,
  caller: Caller,
  ramp: RolloutRow,
  subject: NonNullable<Awaited<ReturnType<typeof rampSubject>>>,
  step: number,
  now: Date,
) {
  const count = subject.rollout.steps.length;
  if (!Number.isInteger(step) || step < 1 || step > count)
    throw new DomainError('config-invalid', `step must be one of the ramp's steps, 1 to ${count}`, {
      errors: [{ pointer: '#/step', detail: `must be from 1 to ${count}` }],
    });
  const { coverage, version } = await setStep(
    tx,
    ramp,
    subject.rollout,
    step - 1,
    now,
    caller.userId,
  );
  return {
    action: 'rollout.jumped' as const,
    details: { from_step: ramp.step + 1, step, coverage, ...(version === null ? {} : { version }) },
  };
}
