import { type BucketMap, clientRanges } from '@arbiter/contract';
import { eq } from 'drizzle-orm';
import type { Context } from '../../context.ts';
import { experiments, metricMethodOverrides, retentionWatermarks } from '../../db/schema.ts';
import type { LoadedExperiment } from '../../domain/experiments/service.ts';
import { effectivePlan } from '../../domain/plans/effective-plan.ts';
import { PLAN_LIMITS } from '../../domain/plans/plans.ts';
import { DAY_MS, startOfUtcDay, utcDay } from '../../kernel/utc-day.ts';
import type { RunKind } from '../../schemas/analysis-run.ts';
import type { ExperimentConfig, MetricDefinition } from '../../schemas/experiment-config.ts';
import { type MetricInput, type RunInputs, showsDistribution } from '../compute/compute-run.ts';
import type { Method } from '../compute/metric-test.ts';
import { type Caps, NO_CAPS } from '../sql/capping-sql.ts';
import type { SufficientStats } from '../sql/sufficient-stats.ts';
import { type EventReads, eventReads } from './event-reads.ts';
import { NO_ARRIVALS } from './sample-size.ts';
import type { ValueScope } from './value-scope.ts';

export interface RunRequest {
  kind: RunKind;
  label: string;
  /** Exclusive end of the window: the next midnight for a nightly day, now for a manual run. */
  windowEnd: Date;
  /** The fold position the run's gate saw (`awaitFold`): stored with the run. */
  foldedThrough: Date;
  /** The breakdown dimensions to compute slices for once the run's own results are computed. */
  dimensions?: readonly string[];
  /** The stopped experiment's last nightly run (its window ends at the stop). */
  final?: boolean;
}

/** Buckets each arm owns now, as shares of all buckets: the traffic split the SRM gate expects. */
function armShares(config: ExperimentConfig, map: BucketMap): Record<string, number> {
  const shares = new Map<string, number>();
  for (const r of clientRanges(map))
    shares.set(r.variant, (shares.get(r.variant) ?? 0) + (r.end - r.start) / config.bucket_count);
  // Allocation order, so the control arm comes first.
  return Object.fromEntries(
    config.allocation
      .filter((s) => shares.has(s.variant))
      .map((s) => [s.variant, shares.get(s.variant) as number]),
  );
}

/** The window runs from the UTC day the experiment was created to the day before `windowEnd`. */
export function analysisWindow(createdAt: Date, windowEnd: Date) {
  const windowStart = startOfUtcDay(createdAt);
  const window = { from: utcDay(windowStart), to: utcDay(new Date(windowEnd.getTime() - 1)) };
  const windowDays = Math.max(
    1,
    Math.round((Date.parse(`${window.to}T00:00:00Z`) - windowStart.getTime()) / DAY_MS) + 1,
  );
  return { windowStart, window, windowDays };
}

/**
 * The experiment's rows over the run's window: what every statement of the run reads. A window
 * that ends at the experiment's stop is cut there, so nothing stamped after the stop counts,
 * whatever day it falls on.
 */
export function valueScope(found: LoadedExperiment, windowEnd: Date): ValueScope {
  const { window } = analysisWindow(found.row.createdAt, windowEnd);
  const scope = { experimentId: found.row.id, orgId: found.row.orgId, window };
  const stop = found.row.stoppedAt;
  return stop !== null && stop.getTime() === windowEnd.getTime() ? { ...scope, cut: stop } : scope;
}

/**
 * Every query of one run of the experiment loaded with its current version: the method
 * overrides, the retention watermark, the org's experiments when an org-wide covariate reads
 * under them, one aggregate statement for the arms and every metric's sufficient statistics and
 * histograms, and the capped samples of metrics tested by Mann–Whitney or permutation.
 */
export async function readRunInputs(
  ctx: Pick<Context, 'db' | 'config' | 'shards'>,
  found: LoadedExperiment,
  request: RunRequest,
): Promise<RunInputs> {
  const config = found.version.config;
  const plan = PLAN_LIMITS[(await effectivePlan(ctx.db, found.row.orgId, request.windowEnd)).plan];
  const shares = armShares(config, found.version.bucketMap);
  const control = config.allocation[0]?.variant ?? '';
  const { windowStart, window, windowDays } = analysisWindow(
    found.row.createdAt,
    request.windowEnd,
  );
  const scope = await runScope(ctx, found, request.windowEnd);
  const treatments = Object.keys(shares).filter((a) => a !== control);
  const binned = config.metrics.filter(showsDistribution).map((m) => m.name);
  const groups = treatments.map((t) => ({ key: t, variants: [control, t], metrics: binned }));
  const reads = eventReads(ctx.shards, scope);
  const overrides = await methodOverrides(ctx, found.row.id);
  const caps = await reads.caps(config.metrics, Object.keys(shares));
  const stats = await reads.stats(
    config.metrics,
    groups,
    heldCaps(config.metrics, overrides, caps),
  );
  const truncated = await retentionTruncated(ctx, found.row.orgId, windowStart);
  const metrics = await metricInputs(config.metrics, {
    reads,
    caps,
    stats,
    overrides,
    maxSample: plan.max_sample_per_arm,
    truncated,
  });
  const span = { window, windowDays, windowEnd: request.windowEnd, exposed: stats.arms };
  const inputs: RunInputs = {
    label: request.label,
    kind: request.kind,
    windowStart,
    windowEnd: request.windowEnd,
    windowDays,
    control,
    shares,
    arms: stats.arms,
    metrics,
    retentionTruncated: truncated,
    plan,
    minEventsPerArm: ctx.config.minEventsPerArm,
    sequentialTuning: ctx.config.sequentialTuning,
    // Only a primary metric gets a time-to-decision estimate.
    arrivals: config.metrics.some((m) => m.category === 'primary')
      ? await reads.arrivals(span)
      : NO_ARRIVALS,
  };
  return inputs;
}

const methodOf = (m: MetricDefinition, overrides: Map<string, Method>): Method =>
  overrides.get(m.name) ?? (m.method_default as Method);

/**
 * The caps the statistics hold values within: every metric's but those tested by Mann–Whitney,
 * whose ranks, effect and means stay on the uncapped values (its result says so).
 */
function heldCaps(
  definitions: readonly MetricDefinition[],
  overrides: Map<string, Method>,
  caps: Caps,
): Caps {
  const ranked = new Set(
    definitions.filter((m) => methodOf(m, overrides) === 'mann_whitney').map((m) => m.name),
  );
  return new Map([...caps].filter(([name]) => !ranked.has(name)));
}

/**
 * Each metric as the run tests it: its method, its statistics, the samples a rank or
 * permutation test needs (a permutation test's held within the cap; Mann–Whitney ranks the
 * uncapped values), a quantile's order statistics, and the cap the run applied.
 */
async function metricInputs(
  definitions: readonly MetricDefinition[],
  read: {
    reads: EventReads;
    caps: Caps;
    stats: SufficientStats;
    overrides: Map<string, Method>;
    maxSample: number;
    truncated: boolean;
  },
): Promise<MetricInput[]> {
  const { reads, caps, stats, overrides } = read;
  const metrics: MetricInput[] = [];
  for (const definition of definitions) {
    const method = methodOf(definition, overrides);
    const needsSamples = method === 'mann_whitney' || method === 'permutation';
    const cap = caps.get(definition.name);
    metrics.push({
      definition,
      method,
      overridden: overrides.has(definition.name),
      stats: stats.metrics[definition.name] ?? { arms: {}, histograms: {} },
      samples: needsSamples
        ? await reads.samples(definition, read.maxSample, method === 'permutation' ? caps : NO_CAPS)
        : null,
      quantiles:
        definition.quantile === undefined
          ? null
          : await reads.quantiles(definition, read.truncated),
      ...(cap ? { cap } : {}),
    });
  }
  return metrics;
}

/**
 * What the run's statements read under: its experiment, version and window, and with an
 * org-wide CUPED covariate the org's experiments (from the control database, not a shard).
 */
async function runScope(
  ctx: Pick<Context, 'db'>,
  found: LoadedExperiment,
  windowEnd: Date,
): Promise<ValueScope> {
  const orgWide = found.version.config.metrics.some((m) => m.cuped && m.shared_org_wide);
  return {
    ...valueScope(found, windowEnd),
    ...(orgWide ? { orgExperimentIds: await orgExperimentIds(ctx, found.row.orgId) } : {}),
  };
}

/** Every experiment of the org, from the control database: an org-wide covariate's scope. */
async function orgExperimentIds(ctx: Pick<Context, 'db'>, orgId: string): Promise<string[]> {
  const found = await ctx.db
    .select({ id: experiments.id })
    .from(experiments)
    .where(eq(experiments.orgId, orgId));
  return found.map((e) => e.id);
}

async function methodOverrides(
  ctx: Pick<Context, 'db'>,
  experimentId: string,
): Promise<Map<string, Method>> {
  const found = await ctx.db
    .select()
    .from(metricMethodOverrides)
    .where(eq(metricMethodOverrides.experimentId, experimentId));
  return new Map(found.map((o) => [o.metric, o.method as Method]));
}

async function retentionTruncated(
  ctx: Pick<Context, 'db'>,
  orgId: string,
  windowStart: Date,
): Promise<boolean> {
  const [mark] = await ctx.db
    .select()
    .from(retentionWatermarks)
    .where(eq(retentionWatermarks.orgId, orgId));
  return mark !== undefined && mark.purgedBefore > windowStart;
}
