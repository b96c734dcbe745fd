import type { ShardSet } from '../../db/shards/shard-set.ts';
import type { MetricDefinition } from '../../schemas/experiment-config.ts';
import { scatter } from '../shards/scatter.ts';
import { readShardedCaps } from '../shards/sharded-caps.ts';
import { readShardedQuantileArms } from '../shards/sharded-quantiles.ts';
import { readShardedSamples } from '../shards/sharded-samples.ts';
import { readShardedStats } from '../shards/sharded-stats.ts';
import { type Caps, cappedCtes, NO_CAPS, readCaps } from '../sql/capping-sql.ts';
import type { HistogramGroup } from '../sql/histogram-sql.ts';
import { type ArmSamples, readArmSamples } from '../sql/metric-samples.ts';
import { readFoldedQuantileArms } from '../sql/quantile-counts-sql.ts';
import { type QuantileArms, readQuantileArms } from '../sql/quantile-sql.ts';
import { readSufficientStats, type SufficientStats } from '../sql/sufficient-stats.ts';
import { perUserCtes } from '../sql/user-values-sql.ts';
import { ARRIVAL_DAYS, type ArrivalSpan, readArrivals } from './arrivals.ts';
import type { Arrivals } from './sample-size.ts';
import type { ValueScope } from './value-scope.ts';

/** What a run reads from the event data, wherever the shard set keeps it. */
export interface EventReads {
  /** Each capped metric's bounds over the window, pooled over `arms`, and its users capped. */
  caps(metrics: readonly MetricDefinition[], arms: readonly string[]): Promise<Caps>;
  /** The statistics of the per-user values, held within `caps` where a metric has one. */
  stats(
    metrics: readonly MetricDefinition[],
    groups: readonly HistogramGroup[],
    caps?: Caps,
  ): Promise<SufficientStats>;
  /** One metric's sample, its values held within `caps` (none for Mann–Whitney's ranks). */
  samples(metric: MetricDefinition, sampleCap: number, caps?: Caps): Promise<ArmSamples>;
  quantiles(metric: MetricDefinition, truncated: boolean): Promise<QuantileArms>;
  arrivals(span: ArrivalSpan): Promise<Arrivals>;
}

/**
 * The event reads of a run over `shards`. One shard reads as before shards existed: the same
 * statements, so the same run to the byte. Several run each read on every shard at once and
 * merge the answers (`readShardedStats`, `readShardedSamples`, `readShardedQuantileArms`,
 * arrivals added per arm).
 */
export function eventReads(shards: ShardSet, scope: ValueScope): EventReads {
  const capped = (caps: Caps) => (ms: readonly MetricDefinition[]) =>
    cappedCtes(perUserCtes(scope, ms), ms, caps);
  const [only] = shards.all;
  if (only && !shards.sharded)
    return {
      caps: (metrics, arms) => readCaps(only.db, scope, metrics, arms),
      stats: (metrics, groups, caps = NO_CAPS) =>
        readSufficientStats(only.db, scope, metrics, groups, undefined, capped(caps)),
      samples: (metric, cap, caps = NO_CAPS) =>
        readArmSamples(only.db, { scope, metric, cap, userCtes: capped(caps) }),
      // The fold's counts need the raw calls above the estimate; a window the purge reached
      // reads what raw calls are left, as the run then says (`retention_truncated`).
      quantiles: (metric, truncated) =>
        (truncated ? readQuantileArms : readFoldedQuantileArms)(only.db, scope, metric),
      arrivals: (span) => readArrivals(only.db, scope, span),
    };
  return {
    caps: (metrics, arms) => readShardedCaps(shards, scope, metrics, arms),
    stats: (metrics, groups, caps = NO_CAPS) =>
      readShardedStats(shards, scope, metrics, groups, undefined, capped(caps)),
    samples: (metric, cap, caps = NO_CAPS) =>
      readShardedSamples(shards, { scope, metric, cap, userCtes: capped(caps) }),
    quantiles: (metric, truncated) =>
      readShardedQuantileArms(shards, scope, metric, { raw: truncated }),
    arrivals: (span) => shardedArrivals(shards, scope, span),
  };
}

/** Each shard's new users per arm, added up: the shards hold disjoint users. */
async function shardedArrivals(
  shards: ShardSet,
  scope: ValueScope,
  span: ArrivalSpan,
): Promise<Arrivals> {
  // Within the span the merged arms answer without a query, as on one database; without them
  // every shard is asked, never the first alone.
  const [first] = shards.all;
  const { exposed, ...unread } = span;
  if (first && exposed && span.windowDays <= ARRIVAL_DAYS)
    return readArrivals(first.db, scope, span);
  const parts = await scatter(shards, (db) => readArrivals(db, scope, unread));
  const newUsers: Record<string, number> = {};
  for (const part of parts)
    for (const [variant, n] of Object.entries(part.newUsers))
      newUsers[variant] = (newUsers[variant] ?? 0) + n;
  return { days: parts[0]?.days ?? 0, newUsers };
}
