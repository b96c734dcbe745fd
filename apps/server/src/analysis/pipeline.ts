import { benjaminiHochberg, chiSquareGoodnessOfFit } from '@arbiter/stats';
import { eq, sql } from 'drizzle-orm';
import type { Context } from '../context.ts';
import {
  analysisRuns,
  experiments,
  metricMethodOverrides,
  retentionWatermarks,
} from '../db/schema.ts';
import { type BucketMap, clientRanges } from '../domain/experiments/bucket-map.ts';
import { loadCurrentVersion } from '../domain/experiments/current-version.ts';
import { effectivePlan } from '../domain/plans/effective-plan.ts';
import { PLAN_LIMITS } from '../domain/plans.ts';
import type { ExperimentConfig } from '../schemas/experiment-config.ts';
import { judgeUserValues } from './judge/judge-values.ts';
import { distributionOf, type Method, mean, type PairOutcome, testPair } from './metric-test.ts';
import {
  type ArmStatus,
  type MetricResult,
  type RunRecord,
  SIGNIFICANCE_THRESHOLD,
  SRM_THRESHOLD,
  type SrmStatus,
} from './run-record.ts';
import { type ArmValues, metricValues, readUserStats, type WindowDays } from './user-values.ts';

const DAY_MS = 86_400_000;

export interface RunRequest {
  experimentId: string;
  kind: 'nightly' | 'manual';
  label: string;
  /** Exclusive end of the window: the next midnight for a nightly day, now for a manual run. */
  windowEnd: Date;
}

function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** Buckets each arm owns now, as shares of all buckets: the traffic split the SRM gate expects. */
function armShares(config: ExperimentConfig, map: BucketMap): Map<string, number> {
  const shares = new Map<string, number>();
  for (const r of clientRanges(map))
    shares.set(r.variant, (shares.get(r.variant) ?? 0) + (r.end - r.start) / config.bucket_count);
  // Allocation order, so the control arm comes first.
  return new Map(
    config.allocation
      .filter((s) => shares.has(s.variant))
      .map((s) => [s.variant, shares.get(s.variant) as number]),
  );
}

async function loadExperiment(ctx: Context, experimentId: string) {
  const [found] = await loadCurrentVersion(ctx.db, eq(experiments.id, experimentId));
  return found;
}

async function judgeValues(
  ctx: Context,
  experimentId: string,
  metric: string,
  window: WindowDays,
): Promise<ArmValues> {
  const perUser = await judgeUserValues(ctx.db, experimentId, metric, window.from, window.to);
  return new Map([...perUser].map(([variant, users]) => [variant, users.map((u) => u.value)]));
}

/** The window runs from the UTC day the experiment was created to the day before `windowEnd`. */
function analysisWindow(createdAt: Date, windowEnd: Date) {
  const windowStart = new Date(`${utcDay(createdAt)}T00:00:00.000Z`);
  const window: WindowDays = {
    from: utcDay(windowStart),
    to: utcDay(new Date(windowEnd.getTime() - 1)),
  };
  const windowDays = Math.max(
    1,
    Math.round((Date.parse(`${window.to}T00:00:00Z`) - windowStart.getTime()) / DAY_MS) + 1,
  );
  return { windowStart, window, windowDays };
}

/** Exposed users and their exposures per arm. */
function armStatuses(
  armNames: string[],
  stats: Awaited<ReturnType<typeof readUserStats>>,
): Record<string, ArmStatus> {
  const arms: Record<string, ArmStatus> = Object.fromEntries(
    armNames.map((a) => [a, { users: 0, events: 0 }]),
  );
  for (const u of stats) {
    const arm = arms[u.variant];
    if (!arm || u.exposures === 0) continue;
    arm.users += 1;
    arm.events += u.exposures;
  }
  return arms;
}

/** The sample-ratio check: observed users per arm against the configured shares. */
function srmCheck(
  armNames: string[],
  arms: Record<string, ArmStatus>,
  shares: Map<string, number>,
): SrmStatus & { p_value: number } {
  const srm = chiSquareGoodnessOfFit(
    armNames.map((a) => (arms[a] as ArmStatus).users),
    armNames.map((a) => shares.get(a) as number),
  );
  return {
    p_value: srm.p_value,
    halted: srm.p_value < SRM_THRESHOLD,
    observed: Object.fromEntries(armNames.map((a) => [a, (arms[a] as ArmStatus).users])),
    expected_shares: Object.fromEntries(shares),
  } satisfies SrmStatus;
}

/**
 * One analysis run of one experiment, nightly and manual alike: SRM gate, then the tests of
 * every (metric, treatment) pair, then Benjamini–Hochberg across all pairs of the run.
 * Significance is decided on the corrected p-value alone.
 */
export async function analyzeExperiment(ctx: Context, request: RunRequest): Promise<RunRecord> {
  const found = await loadExperiment(ctx, request.experimentId);
  if (!found) throw new Error(`experiment ${request.experimentId} vanished`);
  const config = found.version.config;
  const plan = PLAN_LIMITS[(await effectivePlan(ctx.db, found.row.orgId, request.windowEnd)).plan];
  const shares = armShares(config, found.version.bucketMap);
  const armNames = [...shares.keys()];
  const control = config.allocation[0]?.variant ?? '';
  const { windowStart, window, windowDays } = analysisWindow(
    found.row.createdAt,
    request.windowEnd,
  );
  const stats = await readUserStats(ctx.db, request.experimentId, window);
  const arms = armStatuses(armNames, stats);
  const record: RunRecord = {
    label: request.label,
    kind: request.kind,
    status: 'collecting',
    windowStart,
    windowEnd: request.windowEnd,
    srm: {
      p_value: null,
      halted: false,
      observed: {},
      expected_shares: Object.fromEntries(shares),
    },
    arms,
    results: {},
  };
  const enough =
    armNames.length >= 2 &&
    shares.has(control) &&
    armNames.every((a) => (arms[a] as ArmStatus).events >= ctx.config.minEventsPerArm);
  if (enough) {
    const srm = srmCheck(armNames, arms, shares);
    record.srm = srm;
    if (record.srm.halted) {
      record.status = 'srm_halted';
    } else {
      record.status = 'computed';
      record.results = await testMetrics(ctx, {
        experimentId: request.experimentId,
        config,
        plan,
        control,
        treatments: armNames.filter((a) => a !== control),
        window,
        windowDays,
        stats,
        srmP: srm.p_value,
        preliminary: request.kind === 'manual',
        retentionTruncated: await retentionTruncated(ctx, found.row.orgId, windowStart),
      });
    }
  }
  await storeRun(ctx, found.row.orgId, request.experimentId, record);
  return record;
}

async function retentionTruncated(
  ctx: Context,
  orgId: string,
  windowStart: Date,
): Promise<boolean> {
  const [mark] = await ctx.db
    .select()
    .from(retentionWatermarks)
    .where(eq(retentionWatermarks.orgId, orgId));
  return mark !== undefined && mark.purgedBefore > windowStart;
}

interface TestInput {
  experimentId: string;
  config: ExperimentConfig;
  plan: (typeof PLAN_LIMITS)[keyof typeof PLAN_LIMITS];
  control: string;
  treatments: string[];
  window: WindowDays;
  windowDays: number;
  stats: Awaited<ReturnType<typeof readUserStats>>;
  srmP: number;
  preliminary: boolean;
  retentionTruncated: boolean;
}

type PartialResult = Omit<MetricResult, 'p_value_fdr' | 'significant'>;

/** One (metric, treatment) pair's result before the FDR correction across the run. */
function pairResult(
  input: TestInput,
  metric: ExperimentConfig['metrics'][number],
  treatment: string,
  overridden: boolean,
  pair: { outcome: PairOutcome; controlValues: number[]; treatmentValues: number[] },
): PartialResult {
  const { outcome, controlValues, treatmentValues } = pair;
  return {
    metric: metric.name,
    kind: metric.kind,
    category: metric.category,
    metric_version: metric.metric_version,
    control: input.control,
    treatment,
    test: outcome.test,
    method_overridden: overridden,
    ok: outcome.ok,
    reason: outcome.reason,
    statistic: outcome.statistic,
    p_value: outcome.p_value,
    effect: outcome.effect,
    ci_low: outcome.ci_low,
    ci_high: outcome.ci_high,
    lift: outcome.lift,
    n_per_arm: { [input.control]: controlValues.length, [treatment]: treatmentValues.length },
    mean_per_arm: {
      [input.control]: mean(controlValues),
      [treatment]: mean(treatmentValues),
    },
    srm_p: input.srmP,
    permutations_used: outcome.permutations_used,
    sample_cap_used: outcome.sample_cap_used,
    window_days: input.windowDays,
    retention_truncated: input.retentionTruncated,
    preliminary: input.preliminary,
    distribution: distributionOf({
      [input.control]: controlValues,
      [treatment]: treatmentValues,
    }),
  };
}

async function testMetrics(ctx: Context, input: TestInput): Promise<Record<string, MetricResult>> {
  const overrides = new Map(
    (
      await ctx.db
        .select()
        .from(metricMethodOverrides)
        .where(eq(metricMethodOverrides.experimentId, input.experimentId))
    ).map((o) => [o.metric, o.method as Method]),
  );
  const pending: Array<{ key: string; partial: PartialResult; outcome: PairOutcome }> = [];
  for (const metric of input.config.metrics) {
    const values =
      metric.kind === 'judge'
        ? await judgeValues(ctx, input.experimentId, metric.name, input.window)
        : await metricValues(ctx.db, input.experimentId, metric, input.window, input.stats);
    const method = overrides.get(metric.name) ?? (metric.method_default as Method);
    const controlValues = values.get(input.control) ?? [];
    for (const treatment of input.treatments) {
      const treatmentValues = values.get(treatment) ?? [];
      const outcome = testPair(method, controlValues, treatmentValues, input.plan);
      pending.push({
        key: `${metric.name}::${treatment}`,
        outcome,
        partial: pairResult(input, metric, treatment, overrides.has(metric.name), {
          outcome,
          controlValues,
          treatmentValues,
        }),
      });
    }
  }
  const corrected = benjaminiHochberg(pending.map((p) => p.outcome.p_value));
  return Object.fromEntries(
    pending.map((p, i) => {
      const pFdr = corrected[i] as number;
      return [
        p.key,
        {
          ...p.partial,
          p_value_fdr: pFdr,
          significant: p.outcome.ok && pFdr < SIGNIFICANCE_THRESHOLD,
        },
      ];
    }),
  );
}

/** A nightly day is replaced when re-run; a manual label is new each time. */
async function storeRun(
  ctx: Context,
  orgId: string,
  experimentId: string,
  record: RunRecord,
): Promise<void> {
  const values = {
    orgId,
    experimentId,
    label: record.label,
    kind: record.kind,
    windowStart: record.windowStart,
    windowEnd: record.windowEnd,
    computedAt: ctx.clock.now(),
    hasResults: record.status !== 'collecting',
    srm: record.srm,
    results: record.results,
    arms: record.arms,
  };
  await ctx.db
    .insert(analysisRuns)
    .values(values)
    .onConflictDoUpdate({
      target: [analysisRuns.experimentId, analysisRuns.label],
      set: { ...values, computedAt: sql`excluded.computed_at` },
    });
}
