import { eq } from 'drizzle-orm';
import type { Database, Transaction } from '../../db/connect.ts';
import { experimentRollouts, experiments, rolloutEvaluations } from '../../db/schema.ts';
import { transitionIn } from '../../domain/experiments/lifecycle/transitions.ts';
import type { LoadedExperiment } from '../../domain/experiments/service.ts';
import { SRM_PAUSE_P } from '../../domain/rollouts/guard-level.ts';
import { announce, type RolloutRow, updateRamp } from '../../domain/rollouts/ramp.ts';
import type { GuardrailReading, RolloutConfig } from '../../schemas/rollout.ts';
import type { GuardVerdict } from './guard-verdict.ts';

type Action = 'none' | 'paused' | 'rolled_back';

/** A ramp the guard claimed for one evaluation, with its rollout. */
export interface Claimed {
  ramp: RolloutRow;
  rollout: RolloutConfig;
}

const num = (v: number | null) => (v === null ? 'n/a' : Number(v.toPrecision(3)).toString());

/** What the guard saw, in a sentence for the banner, the trail and the webhook. */
export function reasonOf(verdict: GuardVerdict): string {
  if (verdict.finding === 'srm') {
    const arms = Object.keys(verdict.shares)
      .map(
        (arm) =>
          `${arm} ${verdict.users[arm] ?? 0} users for a share of ${num(verdict.shares[arm] ?? 0)}`,
      )
      .join(', ');
    return `Sample ratio mismatch (p = ${num(verdict.srmP)}, below ${SRM_PAUSE_P}): ${arms}; the data cannot be trusted`;
  }
  return verdict.readings
    .filter((r) => r.worse)
    .map(
      (r) =>
        `${r.metric} is worse on ${r.treatment}: ${num(r.effect)} against control (always-valid interval ${num(r.ci_low)} to ${num(r.ci_high)}, p = ${num(r.p_value)})`,
    )
    .join('; ');
}

/** The ramp's action on a verdict: SRM always pauses, a violation does what the rollout says. */
function actionOf(verdict: GuardVerdict, claimed: Claimed): Action {
  if (verdict.finding === 'none') return 'none';
  if (verdict.finding === 'srm' || claimed.rollout.on_violation === 'pause') return 'paused';
  return 'rolled_back';
}

/** Holds the ramp where it is, paused by the guard: the coverage stays and nothing stops. */
async function pauseByGuard(tx: Transaction, experimentId: string, reason: string) {
  await updateRamp(tx, experimentId, {
    state: 'paused',
    advanceAt: null,
    guardAt: null,
    pausedBy: 'guard',
    pausedReason: reason,
  });
}

/**
 * Stores the evaluation and acts on it in one transaction. The experiment's row is locked
 * before the ramp's (the order of a stop), and the action is taken only if both still run: a
 * user who paused or stopped in the meantime has the last word, and the evaluation is stored
 * with no action. Pausing is audited `rollout.paused` and sent as `rollout.paused`; a rollback
 * is the lifecycle's own stop (conclusion rollback, `experiment.stopped`), audited
 * `rollout.rolled_back` with what the guard saw and sent as `experiment.rolled_back`. An
 * evaluation at an instant already stored (another process's) changes nothing.
 */
export async function actOnVerdict(
  db: Database,
  claimed: Claimed,
  evaluated: { found: LoadedExperiment; verdict: GuardVerdict },
  now: Date,
): Promise<Action> {
  const { verdict, found } = evaluated;
  const id = claimed.ramp.experimentId;
  return db.transaction(async (tx) => {
    const [row] = await tx.select().from(experiments).where(eq(experiments.id, id)).for('update');
    const [ramp] = await tx
      .select()
      .from(experimentRollouts)
      .where(eq(experimentRollouts.experimentId, id))
      .for('update');
    const live = row?.status === 'running' && ramp?.state === 'running';
    const action = live ? actionOf(verdict, claimed) : 'none';
    const reason = action === 'none' ? null : reasonOf(verdict);
    const step = ramp?.step ?? claimed.ramp.step;
    const coverage = found.version.config.coverage ?? 1;
    const stored = await storeEvaluation(tx, claimed, verdict, {
      now,
      step,
      coverage,
      action,
      reason,
    });
    if (stored === undefined || action === 'none' || row === undefined) return 'none';
    const saw = {
      step: step + 1,
      coverage,
      reason,
      evaluation_id: stored.id,
      srm_p: verdict.srmP,
      guardrails: verdict.readings.filter((r: GuardrailReading) => r.worse),
    };
    if (action === 'paused') {
      await pauseByGuard(tx, id, reason as string);
      const move = { action: 'rollout.paused', event: 'rollout.paused', actor: null, now } as const;
      await announce(tx, row, move, { ...saw, by: 'guard' });
      return action;
    }
    await transitionIn(tx, { orgId: row.orgId, userId: null }, id, 'stop', now, {
      conclusion: 'rollback',
      reason: `The rollout's guard: ${reason}`,
    });
    const move = {
      action: 'rollout.rolled_back',
      event: 'experiment.rolled_back',
      actor: null,
      now,
    } as const;
    await announce(tx, row, move, saw);
    return action;
  });
}

/** The evaluation's row; undefined when another process stored one at the same instant. */
async function storeEvaluation(
  tx: Transaction,
  claimed: Claimed,
  verdict: GuardVerdict,
  at: { now: Date; step: number; coverage: number; action: Action; reason: string | null },
) {
  const [stored] = await tx
    .insert(rolloutEvaluations)
    .values({
      experimentId: claimed.ramp.experimentId,
      orgId: claimed.ramp.orgId,
      evaluatedAt: at.now,
      step: at.step,
      coverage: at.coverage,
      srmP: verdict.srmP,
      guardrails: verdict.readings,
      action: at.action,
      reason: at.reason,
    })
    .onConflictDoNothing()
    .returning({ id: rolloutEvaluations.id });
  return stored;
}
