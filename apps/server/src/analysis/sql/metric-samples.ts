import { type SQL, sql } from 'drizzle-orm';
import { type Database, rows, toNumber } from '../../db/connect.ts';
import type { MetricDefinition } from '../../schemas/experiment-config.ts';
import type { ValueScope } from '../reads/value-scope.ts';
import { inAnalysisTransaction } from '../run/analysis-transaction.ts';
import { perUserCtes, valueColumn } from './user-values-sql.ts';

/** The seed of every sample and permutation: a re-run of the same data gives the same answer. */
export const SAMPLE_SEED = 20_261_121;

export interface ArmSamples {
  /** Per arm, the sampled users' values, ordered by user id. */
  values: Record<string, number[]>;
  /** Whether an arm had more users than the cap (so its values are a sample). */
  capUsed: boolean;
}

/**
 * One metric's sample: its scope, the most users per arm, and the CTEs ending in `u` its values
 * come from (a breakdown's; the run's own when absent).
 */
export interface SampleRequest {
  scope: ValueScope;
  metric: MetricDefinition;
  cap: number;
  userCtes?: (metrics: MetricDefinition[]) => SQL;
}

/**
 * Per-user values of one metric for the tests that need samples (Mann–Whitney, permutation):
 * at most `cap` users per arm, a uniform sample chosen in SQL by the order of md5(seed, user
 * id), so the same data and seed always give the same users, and no more than `cap` rows per
 * arm ever reach Node. Ordered by user id within the arm, so the permutation test's own
 * seeded shuffles see a stable order.
 */
export async function readArmSamples(db: Database, request: SampleRequest): Promise<ArmSamples> {
  const { cap } = request;
  const found = await inAnalysisTransaction(db, (tx) =>
    rows<{ variant: string; value: unknown; n: unknown }>(
      tx,
      sql`${rankedSample(request)}
    select variant, value, n from ranked where r <= ${cap} order by variant, user_id`,
    ),
  );
  const values: Record<string, number[]> = {};
  let capUsed = false;
  for (const r of found) {
    const list = values[r.variant] ?? [];
    list.push(toNumber(r.value));
    values[r.variant] = list;
    if (toNumber(r.n) > cap) capUsed = true;
  }
  return { values, capUsed };
}

/**
 * The CTEs ending in `ranked`: each user with a value of the request's metric (its CUPED
 * covariate left out), its arm's count `n`, its sampling key `k` (md5 of seed and user id) and
 * its rank `r` in the arm by that key.
 */
export function rankedSample({ scope, metric, userCtes }: SampleRequest): SQL {
  const plain = { ...metric, cuped: undefined };
  const ctes = userCtes ? userCtes([plain]) : perUserCtes(scope, [plain]);
  return sql`with ${ctes},
      ranked as (
        select variant, user_id, ${valueColumn(0)} as value, count(*) over (partition by variant) as n,
          md5(${String(SAMPLE_SEED)} || ':' || user_id) as k,
          row_number() over (partition by variant order by md5(${String(SAMPLE_SEED)} || ':' || user_id), user_id) as r
        from u where ${valueColumn(0)} is not null
      )`;
}
