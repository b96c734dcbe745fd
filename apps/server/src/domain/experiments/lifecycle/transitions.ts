import { eq, sql } from 'drizzle-orm';
import type { Database, Transaction } from '../../../db/connect.ts';
import { experiments } from '../../../db/schema.ts';
import { recordAudit } from '../../audit.ts';
import { bumpConfigVersion } from '../../config-version.ts';
import type { Caller } from '../../identity/identity.ts';
import { enqueueLifecycleEvent } from '../../outbound-webhooks/experiment-events.ts';
import { DomainError } from '../../outcomes.ts';
import { type LabelMove, moveLabel } from '../../prompts/labels.ts';
import { referenceOf } from '../../prompts/references.ts';
import { endRamp, startRamp } from '../../rollouts/ramp.ts';
import { loadCurrentVersion } from '../current-version.ts';
import { addressed, type Experiment, notFound, present } from '../service.ts';
import { actorNames } from './actors.ts';
import {
  type ExperimentStatus,
  FROM,
  invalidTransition,
  type StopConclusion,
  type Transition,
} from './states.ts';

type ExperimentRow = typeof experiments.$inferSelect;

/**
 * What a stop says: the conclusion, the variant shipped (ship only) and why. `release_prompt`
 * false keeps a shipped variant's prompt version off the `production` label.
 */
export type StopRequest =
  | { conclusion: 'ship'; variant: string; reason?: string; release_prompt?: boolean }
  | { conclusion: 'rollback' | 'inconclusive'; reason?: string };

/** The served variant of a stop, refused (400) when a ship names no variant of the experiment. */
function servedVariant(stop: StopRequest, variants: string[], control: string): string {
  if (stop.conclusion !== 'ship') return control;
  if (variants.includes(stop.variant)) return stop.variant;
  throw new DomainError(
    'config-invalid',
    `"${stop.variant}" is not a variant of this experiment; ship one of ${variants.join(', ')}`,
    { errors: [{ pointer: '#/variant', detail: `must be one of ${variants.join(', ')}` }] },
  );
}

/** The columns a transition writes, from the locked row and its current version's config. */
function changeOf(
  transition: Transition,
  row: ExperimentRow,
  config: { variants: Array<{ key: string }>; allocation: Array<{ variant: string }> },
  caller: Mover,
  now: Date,
  stop: StopRequest | undefined,
): Partial<ExperimentRow> & { status: ExperimentStatus } {
  switch (transition) {
    case 'start':
      return { status: 'running' };
    case 'archive':
      return { status: 'archived', archivedFrom: row.status as 'draft' | 'stopped' };
    case 'unarchive':
      return { status: row.archivedFrom ?? 'stopped', archivedFrom: null };
    case 'stop': {
      const request = stop as StopRequest;
      const control = config.allocation[0]?.variant ?? config.variants[0]?.key ?? '';
      return {
        status: 'stopped',
        stopConclusion: request.conclusion as StopConclusion,
        servedVariant: servedVariant(
          request,
          config.variants.map((v) => v.key),
          control,
        ),
        // An empty reason (a form's untouched field) is no reason.
        stopReason: request.reason === undefined || request.reason === '' ? null : request.reason,
        stoppedAt: now,
        stoppedBy: caller.userId,
      };
    }
  }
}

/** The server moving an experiment itself (the ramp's guard): no member, no actor. */
export type ServerMover = { orgId: string; userId: null };
type Mover = Caller | ServerMover;

/**
 * Moves an experiment through its lifecycle in one transaction: the row is locked, the move
 * checked against its status (409 otherwise), written, audited (`experiment.<transition>`), its
 * outbound webhook event queued, and the org's config version moved on so clients pick it up
 * on their next poll.
 */
export async function transition(
  db: Database,
  caller: Caller,
  idOrName: string,
  move: Transition,
  now: Date,
  stop?: StopRequest,
): Promise<Experiment> {
  const { row, version } = await db.transaction((tx: Transaction) =>
    transitionIn(tx, caller, idOrName, move, now, stop),
  );
  return present(row, version, await actorNames(db, [row.stoppedBy]));
}

/**
 * The lifecycle move inside the caller's transaction (the ramp's guard stops an experiment in
 * the transaction that stores its evaluation); returns the experiment as it now is.
 */
export async function transitionIn(
  tx: Transaction,
  caller: Mover,
  idOrName: string,
  move: Transition,
  now: Date,
  stop?: StopRequest,
) {
  const [locked] = await tx
    .select()
    .from(experiments)
    .where(addressed(caller.orgId, idOrName))
    .for('update');
  if (locked === undefined) throw notFound(idOrName);
  if (!FROM[move].includes(locked.status)) throw invalidTransition(locked.status, move);
  const [current] = await loadCurrentVersion(tx, eq(experiments.id, locked.id));
  const change = changeOf(move, locked, current!.version.config, caller, now, stop);
  const [updated] = await tx
    .update(experiments)
    .set({ ...change, updatedAt: sql`now()` })
    .where(eq(experiments.id, locked.id))
    .returning();
  const released = await releasePrompt(tx, caller, current!.version.config, updated!, stop);
  await bumpConfigVersion(tx, caller.orgId);
  const rollout = current!.version.config.rollout;
  if (move === 'start' && rollout !== undefined)
    await startRamp(tx, updated!, rollout, now, caller.userId);
  if (move === 'stop') await endRamp(tx, locked.id);
  await recordAudit(tx, {
    orgId: caller.orgId,
    actorUserId: caller.userId,
    action: `experiment.${move}`,
    targetType: 'experiment',
    targetId: locked.id,
    details: { ...auditDetails(locked.status, updated!), ...released },
  });
  await enqueueLifecycleEvent(tx, move, locked.status, updated!, now);
  // The start of a ramp minted a version with its first step's coverage.
  const [latest] = await loadCurrentVersion(tx, eq(experiments.id, locked.id));
  return { row: latest!.row, version: latest!.version };
}

/**
 * A ship of a variant that references a stored prompt version releases it: the prompt's
 * `production` label moves to that version in the stop's transaction (audited as a label move
 * naming the experiment), unless the request says `release_prompt: false`. A rollback or an
 * inconclusive stop leaves every label where it was.
 */
async function releasePrompt(
  tx: Transaction,
  caller: Mover,
  config: { variants: Array<{ key: string; prompt?: unknown }> },
  row: ExperimentRow,
  stop: StopRequest | undefined,
): Promise<{ released_prompt?: { name: string; version: number; from: number | null } }> {
  // Only a member ships: the server's own stop (the guard's rollback) releases nothing.
  if (stop?.conclusion !== 'ship' || stop.release_prompt === false || !('role' in caller))
    return {};
  const variant = config.variants.find((v) => v.key === row.servedVariant);
  const ref = variant && referenceOf(variant as Parameters<typeof referenceOf>[0]);
  if (ref === undefined) return {};
  const move: LabelMove = await moveLabel(tx, caller, ref.name, 'production', ref.version, {
    experiment_id: row.id,
    experiment: row.name,
  });
  return { released_prompt: { name: ref.name, version: ref.version, from: move.from } };
}

function auditDetails(from: ExperimentStatus, row: ExperimentRow): Record<string, unknown> {
  const details: Record<string, unknown> = { from, to: row.status };
  if (row.status === 'stopped' && from === 'running') {
    details.conclusion = row.stopConclusion;
    details.served_variant = row.servedVariant;
    details.reason = row.stopReason;
  }
  return details;
}
