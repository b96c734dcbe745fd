/**
 * The reference assign: what every evaluator (the server's POST /v1/assign, the TypeScript,
 * Python and Java clients) must reproduce. The vectors scripts beside it (write-eligibility.ts,
 * write-lifecycle.ts) compute their expected answers with it, from the reference pieces
 * (packages/conditions, packages/bucketing).
 */
import { bucketOf, inCoverage, variantForBucket } from '@arbiter/bucketing';
import { evalCondition } from '../src/index.ts';

export interface Experiment {
  id: string;
  name: string;
  version: number;
  salt: string;
  bucket_count: number;
  ranges: Array<{ variant: string; start: number; end: number }>;
  variants: Array<{ key: string; prompt?: string; variables?: Record<string, unknown> }>;
  /** Absent: running (configs written before experiments had a lifecycle). */
  status?: 'draft' | 'running' | 'stopped';
  /** Present only when status is stopped: the variant every eligible user gets. */
  served_variant?: string;
  targeting?: unknown;
  /** The share (0 to 1) of eligible users who enter a running experiment; absent: 1. */
  coverage?: number;
  layer?: string;
  layer_ranges?: Array<{ start: number; end: number }>;
  holdouts?: string[];
}

export interface Layer {
  name: string;
  salt: string;
  bucket_count: number;
}

export interface Holdout {
  id: string;
  name: string;
  salt: string;
  bucket_count: number;
  ranges: Array<{ start: number; end: number }>;
}

/** The org-wide pieces a config carries beside its experiments. */
export interface World {
  saved_groups: Record<string, Array<string | number>>;
  layers: Layer[];
  holdouts: Holdout[];
}

export type Reason =
  | 'held_out'
  | 'not_in_layer'
  | 'not_targeted'
  | 'not_covered'
  | 'not_enrolled'
  | 'draft'
  | 'unknown_experiment';

export interface Exposure {
  experiment_id: string;
  variant: string;
}

export interface Assigned {
  variant: string | null;
  reason?: Reason;
  exposures: Exposure[];
}

const inRanges = (ranges: ReadonlyArray<{ start: number; end: number }>, bucket: number) =>
  ranges.some((r) => r.start <= bucket && bucket < r.end);

/**
 * The reference order. An experiment the config lacks (an archived one, say) is null,
 * `unknown_experiment`; a draft is null, `draft`, with nothing evaluated and nothing sent. Then
 * holdouts (in the experiment's order; each one reached records an exposure to the holdout,
 * `holdout` or `general`, and the first that holds the user out ends it), the layer, targeting;
 * a stopped experiment then serves its `served_variant` whatever the bucket and records no
 * exposure of its own; a running one (status absent or `running`) admits the user when the
 * coverage hash is within its coverage (`not_covered` otherwise, no exposure of its own), then
 * reads its own bucket.
 */
export function referenceAssign(
  world: World,
  experiment: Experiment | undefined,
  user: string,
  attributes: Record<string, unknown>,
): Assigned {
  if (experiment === undefined)
    return { variant: null, reason: 'unknown_experiment', exposures: [] };
  if (experiment.status === 'draft') return { variant: null, reason: 'draft', exposures: [] };
  const exposures: Exposure[] = [];
  for (const id of experiment.holdouts ?? []) {
    const holdout = world.holdouts.find((h) => h.id === id);
    if (holdout === undefined) continue;
    const held = inRanges(holdout.ranges, bucketOf(holdout.salt, user, holdout.bucket_count));
    exposures.push({ experiment_id: holdout.id, variant: held ? 'holdout' : 'general' });
    if (held) return { variant: null, reason: 'held_out', exposures };
  }
  if (experiment.layer !== undefined) {
    const layer = world.layers.find((l) => l.name === experiment.layer);
    if (
      layer === undefined ||
      !inRanges(experiment.layer_ranges ?? [], bucketOf(layer.salt, user, layer.bucket_count))
    )
      return { variant: null, reason: 'not_in_layer', exposures };
  }
  if (
    experiment.targeting !== undefined &&
    !evalCondition(attributes, experiment.targeting, world.saved_groups)
  )
    return { variant: null, reason: 'not_targeted', exposures };
  if (experiment.status === 'stopped') {
    if (experiment.served_variant === undefined)
      throw new Error(`${experiment.name}: no served_variant`);
    return { variant: experiment.served_variant, exposures };
  }
  if (experiment.coverage !== undefined && !inCoverage(experiment.salt, user, experiment.coverage))
    return { variant: null, reason: 'not_covered', exposures };
  const variant = variantForBucket(
    experiment.ranges,
    bucketOf(experiment.salt, user, experiment.bucket_count),
  );
  if (variant === null) return { variant, reason: 'not_enrolled', exposures };
  exposures.push({ experiment_id: experiment.id, variant });
  return { variant, exposures };
}
