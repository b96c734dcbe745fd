import { desc, eq } from 'drizzle-orm';
import type { Database } from '../../db/connect.ts';
import { experimentRollouts, rolloutEvaluations } from '../../db/schema.ts';
import type { GuardrailReading } from '../../schemas/rollout.ts';
import { loadCurrentVersion } from '../experiments/current-version.ts';
import { addressed, notFound } from '../experiments/service.ts';
import { DomainError } from '../outcomes.ts';
import { DEFAULT_GUARD_EVERY } from './rollout-config.ts';

/** How many of the latest guard evaluations the ramp's view lists. */
export const EVALUATIONS_SHOWN = 50;

export interface RampView {
  experiment_id: string;
  state: 'running' | 'paused' | 'ended';
  /** 1-based, as the steps are shown. */
  step: number;
  steps: Array<{ coverage: number; hold: string }>;
  on_violation: 'pause' | 'rollback';
  guardrails_every: string;
  coverage: number;
  step_started_at: string;
  next_step_at: string | null;
  next_guard_at: string | null;
  paused_by: 'guard' | 'user' | null;
  paused_reason: string | null;
  evaluations: Array<{
    evaluated_at: string;
    step: number;
    coverage: number;
    srm_p: number | null;
    guardrails: GuardrailReading[];
    action: 'none' | 'paused' | 'rolled_back';
    reason: string | null;
  }>;
}

/** The org's experiment's ramp, with its latest guard evaluations, newest first. */
export async function readRamp(db: Database, orgId: string, idOrName: string): Promise<RampView> {
  const [found] = await loadCurrentVersion(db, addressed(orgId, idOrName));
  if (found === undefined) throw notFound(idOrName);
  const [ramp] = await db
    .select()
    .from(experimentRollouts)
    .where(eq(experimentRollouts.experimentId, found.row.id));
  const rollout = found.version.config.rollout;
  if (ramp === undefined || rollout === undefined)
    throw new DomainError(
      'rollout-not-found',
      `The experiment "${idOrName}" has no ramp: it has no rollout, or it has not started`,
    );
  const evaluations = await db
    .select()
    .from(rolloutEvaluations)
    .where(eq(rolloutEvaluations.experimentId, found.row.id))
    .orderBy(desc(rolloutEvaluations.evaluatedAt))
    .limit(EVALUATIONS_SHOWN);
  return {
    experiment_id: found.row.id,
    state: ramp.state,
    step: ramp.step + 1,
    steps: rollout.steps,
    on_violation: rollout.on_violation,
    guardrails_every: rollout.guardrails_every ?? DEFAULT_GUARD_EVERY,
    coverage: found.version.config.coverage ?? 1,
    step_started_at: ramp.stepStartedAt.toISOString(),
    next_step_at: ramp.advanceAt?.toISOString() ?? null,
    next_guard_at: ramp.guardAt?.toISOString() ?? null,
    paused_by: ramp.pausedBy,
    paused_reason: ramp.pausedReason,
    evaluations: evaluations.map((e) => ({
      evaluated_at: e.evaluatedAt.toISOString(),
      step: e.step + 1,
      coverage: e.coverage,
      srm_p: e.srmP,
      guardrails: e.guardrails,
      action: e.action,
      reason: e.reason,
    })),
  };
}
