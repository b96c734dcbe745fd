import { sql } from 'drizzle-orm';
import { rows, toNumber } from '../../db/connect.ts';
import type { ShardSet } from '../../db/shards/shard-set.ts';
import { inAnalysisTransaction } from '../run/analysis-transaction.ts';
import { type ArmSamples, rankedSample, type SampleRequest } from '../sql/metric-samples.ts';
import { scatter } from './scatter.ts';

interface Ranked {
  variant: string;
  user_id: string;
  value: unknown;
  n: unknown;
  k: string;
}

/**
 * `readArmSamples` over several shards: each returns its first `cap` users per arm in the
 * seeded md5 order, the coordinator keeps the first `cap` of their union in the same order
 * (the users one database would pick: its first `cap` are among the shards' first `cap`), and
 * the first shard sorts the picked ids, so that they come in the order, and by the collation,
 * one database would list them.
 */
export async function readShardedSamples(
  shards: ShardSet,
  request: SampleRequest,
): Promise<ArmSamples> {
  const { cap } = request;
  const parts = await scatter(shards, (db) =>
    inAnalysisTransaction(db, (tx) =>
      rows<Ranked>(
        tx,
        sql`${rankedSample(request)}
        select variant, user_id, value, n, k from ranked where r <= ${cap}`,
      ),
    ),
  );
  const byArm = new Map<string, { n: number; picked: Ranked[] }>();
  for (const r of parts.flat()) {
    const arm = byArm.get(r.variant) ?? { n: 0, picked: [] };
    arm.picked.push(r);
    byArm.set(r.variant, arm);
  }
  // Each shard's n is its whole arm: added once per shard, from any of its rows.
  for (const part of parts) {
    const seen = new Map(part.map((r) => [r.variant, toNumber(r.n)]));
    for (const [variant, n] of seen) (byArm.get(variant) as { n: number }).n += n;
  }
  const chosen: Array<{ variant: string; user_id: string; value: number }> = [];
  for (const [variant, arm] of byArm) {
    arm.picked.sort((a, b) => byCodePoint(a.k, b.k) || byCodePoint(a.user_id, b.user_id));
    for (const r of arm.picked.slice(0, cap))
      chosen.push({ variant, user_id: r.user_id, value: toNumber(r.value) });
  }
  return {
    values: await inUserOrder(shards, chosen),
    capUsed: [...byArm.values()].some((a) => a.n > cap),
  };
}

/** md5 keys are lowercase hex of one length: every collation orders them by code point. */
function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The picked values per arm, ordered by user id as the first shard's collation orders them. */
async function inUserOrder(
  shards: ShardSet,
  chosen: ReadonlyArray<{ variant: string; user_id: string; value: number }>,
): Promise<Record<string, number[]>> {
  const first = shards.all[0];
  if (!first || chosen.length === 0) return {};
  const ordered = await rows<{ variant: string; i: unknown }>(
    first.db,
    sql`select variant, i from json_to_recordset(${JSON.stringify(
      chosen.map((c, i) => ({ variant: c.variant, user_id: c.user_id, i })),
    )}::json) as t(variant text, user_id text, i int) order by variant, user_id`,
  );
  const values: Record<string, number[]> = {};
  for (const o of ordered) {
    const list = values[o.variant] ?? [];
    list.push((chosen[toNumber(o.i)] as { value: number }).value);
    values[o.variant] = list;
  }
  return values;
}
