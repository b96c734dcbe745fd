import { sql } from 'drizzle-orm';
import { rows as rowsOf, toNumber } from '../../db/connect.ts';
import { type EventShards, onEveryShard } from '../../db/shards/every-shard.ts';

/** How many models the usage lists: the most called first. */
const LISTED_MODELS = 100;

export interface UnpricedModel {
  model: string;
  calls: number;
}

/**
 * This month's model calls (by their timestamps) that name a model and count tokens but have no
 * cost: no price row matched them. Counted per model name as sent, over every shard, so a team
 * sees which prices to add.
 */
export async function unpricedCalls(
  shards: EventShards,
  orgId: string,
  from: Date,
  to: Date,
): Promise<UnpricedModel[]> {
  const answers = await onEveryShard(shards, (db) =>
    rowsOf<{ model: string; calls: unknown }>(
      db,
      sql`
      select model, count(*) as calls from events
      where org_id = ${orgId}::uuid and type = 'model_call' and cost_usd is null
        and model is not null and occurred_at >= ${from.toISOString()}::timestamptz
        and occurred_at < ${to.toISOString()}::timestamptz
        and (input_tokens is not null or output_tokens is not null)
      group by model`,
    ),
  );
  const byModel = new Map<string, number>();
  for (const rows of answers)
    for (const row of rows)
      byModel.set(row.model, (byModel.get(row.model) ?? 0) + toNumber(row.calls));
  return [...byModel]
    .map(([model, calls]) => ({ model, calls }))
    .sort((a, b) => b.calls - a.calls || a.model.localeCompare(b.model))
    .slice(0, LISTED_MODELS);
}
