import { eq } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/connect.ts';
import { experimentRollouts, experiments } from '../../db/schema.ts';
import { loadCurrentVersion } from '../../domain/experiments/current-version.ts';
import type { LoadedExperiment } from '../../domain/experiments/service.ts';
import { lockDueRamps, updateRamp } from '../../domain/rollouts/ramp.ts';
import { guardEveryMs } from '../../domain/rollouts/rollout-config.ts';
import { readRunInputs } from '../reads/read-run-inputs.ts';
import { actOnVerdict, type Claimed } from './guard-act.ts';
import { guardVerdict } from './guard-verdict.ts';

/** What the guard reads and writes with. */
export type GuardDeps = Pick<Context, 'db' | 'config' | 'shards'> & {
  log: Pick<Logger, 'warn'>;
};

/** How many due ramps one pass claims; the rest wait for the next tick. */
const CLAIM_BATCH = 20;

/**
 * Claims the ramps whose guard is due, once across processes: the due rows are locked with
 * `for update skip locked` and their next evaluation moved one interval on before the lock is
 * released, as the ramp's advance does. A ramp whose experiment no longer runs is ended.
 */
export async function claimDue(db: Database, now: Date): Promise<Claimed[]> {
  return db.transaction(async (tx) => {
    const claimed: Claimed[] = [];
    for (const { ramp, subject } of await lockDueRamps(
      tx,
      experimentRollouts.guardAt,
      now,
      CLAIM_BATCH,
    )) {
      await updateRamp(tx, ramp.experimentId, {
        guardAt: new Date(now.getTime() + guardEveryMs(subject.rollout)),
      });
      claimed.push({ ramp, rollout: subject.rollout });
    }
    return claimed;
  });
}

/** The experiment as the guard reads it: its current version with the guardrail metrics alone. */
function guardrailsOnly(found: LoadedExperiment): LoadedExperiment {
  const config = found.version.config;
  const metrics = config.metrics.filter((m) => m.category === 'guardrail');
  return { ...found, version: { ...found.version, config: { ...config, metrics } } };
}

/** Reads the folded data of one claimed ramp's experiment up to `now` and decides on it. */
export async function evaluate(deps: GuardDeps, claimed: Claimed, now: Date) {
  const [found] = await loadCurrentVersion(deps.db, eq(experiments.id, claimed.ramp.experimentId));
  if (found === undefined) return null;
  const inputs = await readRunInputs(deps, guardrailsOnly(found), {
    kind: 'manual',
    label: `guard-${now.toISOString()}`,
    windowEnd: now,
    foldedThrough: now,
  });
  return { found, verdict: guardVerdict(inputs) };
}

/**
 * The guard's pass at `now`: each due ramp claimed once, evaluated on the folded data, the
 * evaluation stored and acted on (pause or rollback). One ramp's failure is logged and leaves
 * the others; it is evaluated again an interval later. Returns the orgs whose config changed.
 */
export async function guardDue(deps: GuardDeps, now: Date): Promise<string[]> {
  const changed: string[] = [];
  for (const claimed of await claimDue(deps.db, now)) {
    try {
      const evaluated = await evaluate(deps, claimed, now);
      if (evaluated === null) continue;
      const action = await actOnVerdict(deps.db, claimed, evaluated, now);
      if (action === 'rolled_back') changed.push(claimed.ramp.orgId);
    } catch (err) {
      deps.log.warn(
        { err, experimentId: claimed.ramp.experimentId },
        'a guard evaluation failed; the next one is an interval later',
      );
    }
  }
  return changed;
}
