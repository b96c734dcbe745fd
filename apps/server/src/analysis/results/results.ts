import { defaultDirection } from '@arbiter/contract';
import { and, asc, desc, eq, sql } from 'drizzle-orm';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/connect.ts';
import { analysisRuns, holdouts } from '../../db/schema.ts';
import type { ShardSet } from '../../db/shards/shard-set.ts';
import type { Experiment } from '../../domain/experiments/service.ts';
import { liveCounts } from '../../domain/exposure-counts.ts';
import { utcDay } from '../../kernel/utc-day.ts';
import type { Decision, MetricResult } from '../../schemas/analysis-run.ts';
import { type CollectingEstimate, collectingEstimates } from '../compute/collecting-estimates.ts';
import { checkDimension } from '../compute/dimensions.ts';
import { decide } from '../decision/decision.ts';
import { guardrailViolations } from '../decision/guardrails.ts';
import { metricOutcome } from '../decision/metric-outcome.ts';
import { AnalysisError } from '../outcomes.ts';
import type { Results } from './results-schema.ts';

/** What presenting a run needs: a stored row, or a record just stored. */
export type StoredRun = Pick<
  typeof analysisRuns.$inferSelect,
  | 'experimentId'
  | 'label'
  | 'kind'
  | 'computedAt'
  | 'windowStart'
  | 'windowEnd'
  | 'srm'
  | 'arms'
  | 'results'
  | 'decision'
  | 'slices'
  | 'final'
>;

/**
 * A stored pair as served. Runs stored before directions existed lack `direction` and
 * `outcome`; their configs could not state a direction, so the kind's default was the
 * metric's direction, and the outcome follows from it exactly.
 */
function withOutcome(r: MetricResult): MetricResult {
  if (r.direction !== undefined && r.outcome !== undefined) return r;
  const direction = r.direction ?? defaultDirection(r.kind);
  return { ...r, direction, outcome: metricOutcome(r.significant, r.effect, direction) };
}

/**
 * The decision of a run stored before decisions were: from its stored pairs, with metrics and
 * treatments in name order (the config order it was computed with is not kept).
 */
function derivedDecision(run: StoredRun, results: Record<string, MetricResult>): Decision {
  const pairs = Object.values(results);
  const metrics = new Map(pairs.map((r) => [r.metric, r.category]));
  return decide({
    status: run.srm.halted ? 'srm_halted' : 'computed',
    srmP: run.srm.p_value,
    metrics: [...metrics.keys()]
      .sort()
      .map((name) => ({ name, category: metrics.get(name) ?? '' })),
    treatments: [...new Set(pairs.map((r) => r.treatment))].sort(),
    results,
  });
}

/**
 * A run's slices by `dimension` (declared: `checkDimension`), or the problem that it computed
 * none, saying how to get them.
 */
export function breakdownOf(
  run: Pick<StoredRun, 'label' | 'kind' | 'slices'>,
  dimension: string,
): NonNullable<Results['breakdown']> {
  const slices = run.slices[dimension];
  if (slices !== undefined) return { dimension, exploratory: true, slices };
  const how =
    run.kind === 'manual'
      ? `a manual run computes slices when asked: POST /v1/experiments/{id}/analyze?dimension=${encodeURIComponent(dimension)}`
      : 'the dimension was declared after the run, or the run’s SRM check halted; the next nightly run computes it';
  throw new AnalysisError(
    'breakdown-not-computed',
    `Run ${run.label} computed no slices by ${dimension}: ${how}`,
    { dimension, computed_dimensions: Object.keys(run.slices) },
  );
}

/**
 * The Results response of one stored run (the wire format's Results); with `dimension`, its
 * slices by that dimension as `breakdown`.
 */
export function presentRun(run: StoredRun, availableDays: string[], dimension?: string): Results {
  const results = Object.fromEntries(
    Object.entries(run.results).map(([key, r]) => [key, withOutcome(r)]),
  );
  return {
    experiment_id: run.experimentId,
    computed_for: run.label,
    computed_at: run.computedAt.toISOString(),
    preliminary: run.kind === 'manual',
    final: run.final,
    available_days: availableDays,
    window: { start: run.windowStart.toISOString(), end: run.windowEnd.toISOString() },
    srm: run.srm,
    arms: run.arms,
    results,
    decision: run.decision ?? derivedDecision(run, results),
    guardrail_violations: guardrailViolations(results),
    ...(dimension === undefined ? {} : { breakdown: breakdownOf(run, dimension) }),
  };
}

type ListedRun = Pick<StoredRun, 'label' | 'kind'>;

/** Days first (oldest first), then manual runs in the order they were made. */
function labelsInOrder(runs: readonly ListedRun[]): string[] {
  const of = (kind: ListedRun['kind']) =>
    runs
      .filter((r) => r.kind === kind)
      .map((r) => r.label)
      .sort();
  return [...of('nightly'), ...of('manual')];
}

const withResults = eq(analysisRuns.hasResults, true);

/** The labels of an experiment's runs with results, as `available_days` lists them. */
export async function availableLabels(db: Database, experimentId: string): Promise<string[]> {
  const found = await db
    .select({ label: analysisRuns.label, kind: analysisRuns.kind })
    .from(analysisRuns)
    .where(and(eq(analysisRuns.experimentId, experimentId), withResults))
    .orderBy(asc(analysisRuns.computedAt));
  return labelsInOrder(found);
}

/** No run to show: the facts the collecting answer is written from. */
export interface Collecting {
  kind: 'collecting';
  experimentId: string;
  experimentName: string;
  /** The run asked for by label; null for the default view. */
  label: string | null;
  /** The default view's evaluated events so far per arm (null when a label was asked for). */
  eventsPerArm: Record<string, number> | null;
  /** The default view's time-to-decision estimate per primary metric and treatment. */
  estimates: CollectingEstimate[];
  minEventsPerArm: number;
  /** The UTC day a pipeline run would cover now. */
  today: string;
}

export type ResultsOutcome = { kind: 'run'; results: Results } | Collecting;

/**
 * Each arm's evaluated events so far: exposures from the creation day on, as the window counts,
 * summed over every shard holding event data.
 */
async function eventsPerArm(shards: ShardSet, experiment: Experiment) {
  const counts = await liveCounts(shards, experiment.id, utcDay(new Date(experiment.created_at)));
  const arms = new Set(
    experiment.allocation
      .map((slice) => slice.variant)
      .filter((v) => experiment.bucket_ranges.some((r) => r.variant === v)),
  );
  return Object.fromEntries([...arms].map((a) => [a, counts[a]?.exposures ?? 0]));
}

/**
 * The run the results routes serve: the one named by `label`, else the most recently
 * computed run (so a nightly run landing after a manual one becomes the default view); or,
 * without one, what is collecting.
 */
export async function readResults(
  ctx: Pick<Context, 'db' | 'shards'>,
  experiment: Experiment,
  label: string | undefined,
  settings: { orgId: string; minEventsPerArm: number; now: Date },
  dimension?: string,
): Promise<ResultsOutcome> {
  if (dimension !== undefined) checkDimension(experiment, dimension);
  const { db, shards } = ctx;
  const base = and(eq(analysisRuns.experimentId, experiment.id), withResults);
  const [run] = await db
    .select()
    .from(analysisRuns)
    .where(label === undefined ? base : and(base, eq(analysisRuns.label, label)))
    .orderBy(desc(analysisRuns.computedAt))
    .limit(1);
  if (run)
    return {
      kind: 'run',
      results: presentRun(run, await availableLabels(db, run.experimentId), dimension),
    };
  return {
    kind: 'collecting',
    experimentId: experiment.id,
    experimentName: experiment.name,
    label: label ?? null,
    eventsPerArm: label === undefined ? await eventsPerArm(shards, experiment) : null,
    estimates:
      label === undefined
        ? await collectingEstimates(shards, settings.orgId, experiment, settings.now)
        : [],
    minEventsPerArm: settings.minEventsPerArm,
    today: utcDay(settings.now),
  };
}

/** The default view of every experiment of the org that has computed results: two queries. */
export async function readSummary(
  db: Database,
  orgId: string,
): Promise<Array<Results & { guardrail_violation_count: number }>> {
  const ofOrg = and(
    eq(analysisRuns.orgId, orgId),
    withResults,
    // A holdout's runs are read at /v1/holdouts/{id}/results, not among the experiments'.
    sql`${analysisRuns.experimentId} not in (select ${holdouts.id} from ${holdouts} where ${holdouts.orgId} = ${orgId})`,
  );
  const runs = await db
    .selectDistinctOn([analysisRuns.experimentId])
    .from(analysisRuns)
    .where(ofOrg)
    .orderBy(analysisRuns.experimentId, desc(analysisRuns.computedAt));
  const listed = await db
    .select({
      experimentId: analysisRuns.experimentId,
      label: analysisRuns.label,
      kind: analysisRuns.kind,
    })
    .from(analysisRuns)
    .where(ofOrg)
    .orderBy(asc(analysisRuns.computedAt));
  const byExperiment = new Map<string, ListedRun[]>();
  for (const r of listed)
    byExperiment.set(r.experimentId, [...(byExperiment.get(r.experimentId) ?? []), r]);
  return runs.map((run) => {
    const results = presentRun(run, labelsInOrder(byExperiment.get(run.experimentId) ?? []));
    return { ...results, guardrail_violation_count: results.guardrail_violations.length };
  });
}
