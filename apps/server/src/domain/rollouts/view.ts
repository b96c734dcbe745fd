import { and, desc, eq, ne } from 'drizzle-orm';
import type { Database } from '../../db/connect.ts';
import { newestFirst } from '../../db/keyset-page.ts';
import { experimentRollouts, rolloutEvaluations } from '../../db/schema.ts';
import type { GuardrailReading } from '../../schemas/rollout.ts';
import { loadCurrentVersion } from '../experiments/current-version.ts';
import { addressed, notFound } from '../experiments/service.ts';
import { DomainError } from '../outcomes.ts';
import { GUARD_ALPHA, SRM_PAUSE_P } from './guard-level.ts';
import { DEFAULT_GUARD_EVERY } from './rollout-config.ts';

/** How many of the latest guard evaluations the ramp's view lists. */
export const EVALUATIONS_SHOWN = 50;
/** A page of the evaluations' list: its default and largest size. */
export const EVALUATIONS_PAGE_DEFAULT = 50;
export const EVALUATIONS_PAGE_MAX = 200;

type EvaluationRow = typeof rolloutEvaluations.$inferSelect;

export interface EvaluationView {
  id: string;
  evaluated_at: string;
  step: number;
  coverage: number;
  srm_p: number | null;
  srm_failed: boolean;
  guardrails: GuardrailReading[];
  action: 'none' | 'paused' | 'rolled_back';
  reason: string | null;
}

export interface GuardView {
  state: 'ok' | 'paused' | 'rolled_back';
  alpha: number;
  guardrails: string[];
  last_evaluation: EvaluationView | null;
  last_action: EvaluationView | null;
  next_evaluation_at: string | null;
  evaluations_url: string;
}

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
  guard: GuardView;
  evaluations: EvaluationView[];
}

/** One stored evaluation as the routes show it (steps 1-based). */
export function presentEvaluation(e: EvaluationRow): EvaluationView {
  return {
    id: e.id,
    evaluated_at: e.evaluatedAt.toISOString(),
    step: e.step + 1,
    coverage: e.coverage,
    srm_p: e.srmP,
    srm_failed: e.srmP !== null && e.srmP < SRM_PAUSE_P,
    guardrails: e.guardrails,
    action: e.action,
    reason: e.reason,
  };
}

/** The org's experiment with its ramp row and rollout; 404 when either is absent. */
async function rampOf(db: Database, orgId: string, idOrName: string) {
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
  return { found, ramp, rollout };
}

/** The latest evaluation that acted (paused or rolled back), or null. */
async function lastAction(db: Database, experimentId: string) {
  const [row] = await db
    .select()
    .from(rolloutEvaluations)
    .where(
      and(eq(rolloutEvaluations.experimentId, experimentId), ne(rolloutEvaluations.action, 'none')),
    )
    .orderBy(desc(rolloutEvaluations.evaluatedAt))
    .limit(1);
  return row === undefined ? null : presentEvaluation(row);
}

/** The org's experiment's ramp, with its guard and latest evaluations, newest first. */
export async function readRamp(db: Database, orgId: string, idOrName: string): Promise<RampView> {
  const { found, ramp, rollout } = await rampOf(db, orgId, idOrName);
  const evaluations = (
    await db
      .select()
      .from(rolloutEvaluations)
      .where(eq(rolloutEvaluations.experimentId, found.row.id))
      .orderBy(desc(rolloutEvaluations.evaluatedAt))
      .limit(EVALUATIONS_SHOWN)
  ).map(presentEvaluation);
  const acted = await lastAction(db, found.row.id);
  const guardState =
    ramp.state === 'paused' && ramp.pausedBy === 'guard'
      ? 'paused'
      : ramp.state === 'ended' && acted?.action === 'rolled_back'
        ? 'rolled_back'
        : 'ok';
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
    guard: {
      state: guardState,
      alpha: GUARD_ALPHA,
      guardrails: found.version.config.metrics
        .filter((m) => m.category === 'guardrail')
        .map((m) => m.name),
      last_evaluation: evaluations[0] ?? null,
      last_action: acted,
      next_evaluation_at: ramp.state === 'running' ? (ramp.guardAt?.toISOString() ?? null) : null,
      evaluations_url: `/v1/experiments/${found.row.id}/rollout/evaluations`,
    },
    evaluations,
  };
}

/**
 * The ramp's guard evaluations, newest first, a page at a time: `startingAfter` is the last id
 * of the page before (an id of another experiment is a 404).
 */
export async function listEvaluations(
  db: Database,
  orgId: string,
  idOrName: string,
  page: { limit: number; startingAfter?: string | undefined },
): Promise<{ evaluations: EvaluationView[]; hasMore: boolean }> {
  const { found } = await rampOf(db, orgId, idOrName);
  const mine = eq(rolloutEvaluations.experimentId, found.row.id);
  let after: EvaluationRow | undefined;
  if (page.startingAfter !== undefined) {
    [after] = await db
      .select()
      .from(rolloutEvaluations)
      .where(and(mine, eq(rolloutEvaluations.id, page.startingAfter)));
    if (after === undefined)
      throw new DomainError(
        'rollout-not-found',
        `No evaluation ${page.startingAfter} of this ramp to start after`,
      );
  }
  const order = newestFirst(
    rolloutEvaluations.evaluatedAt,
    rolloutEvaluations.id,
    after && { time: after.evaluatedAt, id: after.id },
  );
  const rows = await db
    .select()
    .from(rolloutEvaluations)
    .where(and(mine, order.after))
    .orderBy(...order.orderBy)
    .limit(page.limit + 1);
  return {
    evaluations: rows.slice(0, page.limit).map(presentEvaluation),
    hasMore: rows.length > page.limit,
  };
}
