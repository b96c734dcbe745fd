import type { ShardSet } from '../../db/shards/shard-set.ts';
import type { MetricDefinition } from '../../schemas/experiment-config.ts';
import { scatter } from '../shards/scatter.ts';
import { readShardedQuantileArms } from '../shards/sharded-quantiles.ts';
import { readShardedSamples } from '../shards/sharded-samples.ts';
import { readShardedStats } from '../shards/sharded-stats.ts';
import type { HistogramGroup } from '../sql/histogram-sql.ts';
import { type ArmSamples, readArmSamples } from '../sql/metric-samples.ts';
import { readFoldedQuantileArms } from '../sql/quantile-counts-sql.ts';
import { type QuantileArms, readQuantileArms } from '../sql/quantile-sql.ts';
import { readSufficientStats, type SufficientStats } from '../sql/sufficient-stats.ts';
import { ARRIVAL_DAYS, type ArrivalSpan, readArrivals } from './arrivals.ts';
import type { Arrivals } from './sample-size.ts';
import type { ValueScope } from './value-scope.ts';

/** What a run reads from the event data, wherever the shard set keeps it. */
export interface EventReads {
  stats(
    metrics: readonly MetricDefinition[],
    groups: readonly HistogramGroup[],
  ): Promise<SufficientStats>;
  samples(metric: MetricDefinition, cap: number): Promise<ArmSamples>;
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
  const [only] = shards.all;
  if (only && !shards.sharded)
    return {
      stats: (metrics, groups) => readSufficientStats(only.db, scope, metrics, groups),
      samples: (metric, cap) => readArmSamples(only.db, { scope, metric, cap }),
      // The fold's counts need the raw calls above the estimate; a window the purge reached
      // reads what raw calls are left, as the run then says (`retention_truncated`).
      quantiles: (metric, truncated) =>
        (truncated ? readQuantileArms : readFoldedQuantileArms)(only.db, scope, metric),
      arrivals: (span) => readArrivals(only.db, scope, span),
    };
  return {
    stats: (metrics, groups) => readShardedStats(shards, scope, metrics, groups),
    samples: (metric, cap) => readShardedSamples(shards, { scope, metric, cap }),
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
