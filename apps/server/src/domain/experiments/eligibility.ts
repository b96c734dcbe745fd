import { createBucketer, variantForBucket } from '@arbiter/bucketing';
import { evalCondition } from '@arbiter/conditions';

/** A half-open run of buckets. */
export interface BucketSpan {
  start: number;
  end: number;
}

/** Why a user gets null, as `POST /v1/assign` says it (unknown_experiment is the route's). */
export type IneligibleReason =
  | 'draft'
  | 'held_out'
  | 'not_in_layer'
  | 'not_targeted'
  | 'not_covered'
  | 'not_enrolled';

export interface Eligibility {
  variant: string | null;
  reason?: IneligibleReason;
}

/** What one experiment's decision reads, as the config ships it plus its own bucketer. */
export interface EligibleExperiment {
  ranges: ReadonlyArray<{ variant: string; start: number; end: number }>;
  bucketOf: (userId: string) => number;
  /** Whether the coverage admits the user (the coverage hash); absent: everyone. */
  covers?: (userId: string) => boolean;
  targeting?: Record<string, unknown>;
  /** True when the targeting holds a stored pattern the server must not run: no one matches. */
  targetingDenied?: boolean;
  layer?: string;
  layer_ranges?: readonly BucketSpan[];
  holdouts?: readonly string[];
  /** Absent: running (a config written before experiments had a lifecycle). */
  status?: 'draft' | 'running' | 'stopped';
  /** The variant a stopped experiment serves every eligible user. */
  served_variant?: string;
}

/** The org-wide pieces an experiment names: layers by name, holdouts by id, saved groups by key. */
export interface EligibilityWorld {
  layers: ReadonlyMap<string, { bucketOf: (userId: string) => number }>;
  holdouts: ReadonlyMap<
    string,
    { bucketOf: (userId: string) => number; ranges: readonly BucketSpan[] }
  >;
  savedGroups: Record<string, Array<string | number>>;
}

/** The world of a config document's `layers`, `holdouts` and `saved_groups` (each may be absent). */
export function eligibilityWorld(config: {
  layers?: ReadonlyArray<{ name: string; salt: string; bucket_count: number }>;
  holdouts?: ReadonlyArray<{
    id: string;
    salt: string;
    bucket_count: number;
    ranges: readonly BucketSpan[];
  }>;
  saved_groups?: Record<string, Array<string | number>>;
}): EligibilityWorld {
  return {
    layers: new Map(
      (config.layers ?? []).map((l) => [
        l.name,
        { bucketOf: createBucketer(l.salt, l.bucket_count) },
      ]),
    ),
    holdouts: new Map(
      (config.holdouts ?? []).map((h) => [
        h.id,
        { bucketOf: createBucketer(h.salt, h.bucket_count), ranges: h.ranges },
      ]),
    ),
    savedGroups: config.saved_groups ?? {},
  };
}

const inSpans = (spans: readonly BucketSpan[], bucket: number) =>
  spans.some((s) => s.start <= bucket && bucket < s.end);

/**
 * Who enters an experiment, in the order every evaluator follows
 * (docs/wire-format.md#who-enters-an-experiment-holdouts-layers-targeting): a draft lets no one
 * in; then holdouts, the layer, targeting, then, once stopped, its served variant whatever the
 * bucket and the coverage; while it runs, the coverage, then the experiment's own bucket. A holdout the world lacks holds no one out; a layer it
 * lacks lets no one in.
 */
export function eligibility(
  experiment: EligibleExperiment,
  userId: string,
  attributes: Record<string, unknown>,
  world: EligibilityWorld,
): Eligibility {
  if (experiment.status === 'draft') return { variant: null, reason: 'draft' };
  if (experiment.holdouts !== undefined) {
    for (const id of experiment.holdouts) {
      const holdout = world.holdouts.get(id);
      if (holdout !== undefined && inSpans(holdout.ranges, holdout.bucketOf(userId)))
        return { variant: null, reason: 'held_out' };
    }
  }
  if (experiment.layer !== undefined) {
    const layer = world.layers.get(experiment.layer);
    if (layer === undefined || !inSpans(experiment.layer_ranges ?? [], layer.bucketOf(userId)))
      return { variant: null, reason: 'not_in_layer' };
  }
  if (
    experiment.targeting !== undefined &&
    (experiment.targetingDenied === true ||
      !evalCondition(attributes, experiment.targeting, world.savedGroups))
  )
    return { variant: null, reason: 'not_targeted' };
  if (experiment.status === 'stopped' && experiment.served_variant !== undefined)
    return { variant: experiment.served_variant };
  if (experiment.covers !== undefined && !experiment.covers(userId))
    return { variant: null, reason: 'not_covered' };
  const variant = variantForBucket(experiment.ranges, experiment.bucketOf(userId));
  return variant === null ? { variant: null, reason: 'not_enrolled' } : { variant };
}
