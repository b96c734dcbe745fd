import { evaluateOffline } from '@arbiter/stats';
import { and, asc, eq, inArray, notInArray, sql } from 'drizzle-orm';
import { type Database, rows } from '../../db/connect.ts';
import { datasetItems, offlineRuns, offlineScores } from '../../db/schema.ts';
import { inVersion } from '../datasets/items-page.ts';
import { enqueueOfflineRunEvent } from '../outbound-webhooks/offline-run-events.ts';
import { MEASURED_SCORERS, type Scorer } from './run-schema.ts';
import { type ScoredResult, score } from './scorers.ts';
import { type Claim, finishScoring, stillHolding } from './scoring-lease.ts';
import type { Coverage, RunResult, RunRow } from './service.ts';

export const COVERAGE_MISSING_MAX = 100;

/** The item ids and expected outputs of the run's dataset version, by id (byte order). */
export async function pinnedItems(db: Pick<Database, 'select'>, run: RunRow) {
  const rows = await db
    .select({
      id: datasetItems.itemId,
      input: sql<string>`${datasetItems.input}::text`,
      expected: sql<string | null>`${datasetItems.expectedOutput}::text`,
      group: datasetItems.group,
    })
    .from(datasetItems)
    .where(inVersion(run.datasetId, run.datasetVersion));
  return rows
    .map((r) => ({
      id: r.id,
      input: JSON.parse(r.input) as unknown,
      expected: r.expected === null ? null : (JSON.parse(r.expected) as unknown),
      group: r.group,
    }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export interface StoredResult extends ScoredResult {
  itemId: string;
  variant: string;
  repeat: number;
  model: string | null;
}

/** A result's measures as the API names them (and `offline_results` stores them). */
export interface ResultMeasures {
  repeat: number;
  error: string | null;
  latency_ms: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cost: number | null;
  model: string | null;
}

/**
 * The run's results. `complete` reads them for scoring only (`forScoring`): without the model,
 * and without the custom scores unless a custom scorer reads them; a million rows either way,
 * so the query is a raw one (no per-row mapping but the few conversions below).
 */
export async function storedResults(
  db: Database,
  runId: string,
  forScoring?: { customScores: boolean },
): Promise<StoredResult[]> {
  const model = forScoring === undefined ? sql`model` : sql`null::text`;
  const scores = forScoring?.customScores === false ? sql`null::jsonb` : sql`scores`;
  const found = await rows<
    ResultMeasures & {
      item_id: string;
      variant: string;
      output: string | null;
      scores: Record<string, number> | null;
    }
  >(
    db,
    // Tokens are int8, which pg returns as strings: float8 holds them exactly below 2^53.
    sql`select item_id, variant, repeat, output::text as output, error, latency_ms,
      input_tokens::float8 as input_tokens, output_tokens::float8 as output_tokens, cost,
      ${model} as model, ${scores} as scores
    from offline_results where run_id = ${runId}`,
  );
  const out = new Array<StoredResult>(found.length);
  for (let n = 0; n < found.length; n++) {
    const r = found[n] as (typeof found)[number];
    out[n] = {
      itemId: r.item_id,
      variant: r.variant,
      repeat: r.repeat,
      output: r.output === null ? null : JSON.parse(r.output),
      error: r.error,
      latencyMs: r.latency_ms,
      inputTokens: r.input_tokens,
      outputTokens: r.output_tokens,
      cost: r.cost,
      model: r.model,
      scores: r.scores ?? {},
    };
  }
  return out;
}

/**
 * The scorers a completed run reports: the ones asked for, then each measured one that is not
 * listed and that some result carries (error_rate whenever there is a result).
 */
export function activeScorers(declared: Scorer[], results: StoredResult[]): Scorer[] {
  const named = new Set(declared.map((s) => s.name));
  const carried = {
    latency_ms: results.some((r) => r.latencyMs !== null),
    total_tokens: results.some((r) => r.inputTokens !== null || r.outputTokens !== null),
    cost: results.some((r) => r.cost !== null),
    error_rate: results.length > 0,
  };
  const measured = MEASURED_SCORERS.filter((m) => !named.has(m) && carried[m]).map(
    (m): Scorer => ({ name: m, kind: m, direction: 'decrease', non_inferiority_margin: null }),
  );
  return [...declared, ...measured];
}

/**
 * The run's coverage. Uploads take only the pinned version's items, the run's variants and
 * repeats below its count, once each, so as many results as expected means none is missing:
 * the key of every result is built only when some are.
 */
export function coverageOf(run: RunRow, itemIds: string[], results: StoredResult[]) {
  const missing: Array<{ item_id: string; variant: string; repeat: number }> = [];
  if (results.length < run.expectedResults) {
    const have = new Set(results.map((r) => `${r.variant}\u0000${r.itemId}\u0000${r.repeat}`));
    for (const variant of run.variants) {
      for (const item of itemIds) {
        for (
          let repeat = 0;
          repeat < run.repeats && missing.length < COVERAGE_MISSING_MAX;
          repeat++
        ) {
          if (!have.has(`${variant}\u0000${item}\u0000${repeat}`))
            missing.push({ item_id: item, variant, repeat });
        }
      }
    }
  }
  let failed = 0;
  for (const r of results) if (r.error !== null) failed++;
  return {
    expected_results: run.expectedResults,
    received_results: results.length,
    missing_results: run.expectedResults - results.length,
    failed_results: failed,
    missing,
  };
}

/** scorer → variant → item → the values of its repeats, in repeat order. */
export type ScoreValues = Map<string, Map<string, Map<string, number[]>>>;

function addValue(values: ScoreValues, scorer: string, variant: string, item: string, y: number) {
  let byVariant = values.get(scorer);
  if (byVariant === undefined) {
    byVariant = new Map();
    values.set(scorer, byVariant);
  }
  let byItem = byVariant.get(variant);
  if (byItem === undefined) {
    byItem = new Map();
    byVariant.set(variant, byItem);
  }
  const ys = byItem.get(item);
  if (ys === undefined) byItem.set(item, [y]);
  else ys.push(y);
}

export const isJudge = (s: Scorer) => s.kind === 'judge';
export const isMeasuredScorer = (s: Scorer) =>
  (MEASURED_SCORERS as readonly string[]).includes(s.kind);

/**
 * The built-in scorers' values of these results, as score rows (for the items view). They are
 * not stored: each is a function of the result and its item's expected output, and storing a
 * million of them was most of `complete` at that size (docs/decisions/offline-evaluation.md#offline-runs). The
 * output scorers' values exist once the run is scored (as when they were stored then); the
 * measured ones' always, as the result's own columns.
 */
export function builtinScoreRows(
  run: RunRow,
  results: StoredResult[],
  expected: ReadonlyMap<string, unknown>,
) {
  const rows: Array<typeof offlineScores.$inferSelect> = [];
  const scored = run.status !== 'running';
  for (const scorer of run.scorers as unknown as Scorer[]) {
    if (isJudge(scorer) || !(scored || isMeasuredScorer(scorer))) continue;
    for (const r of results) {
      const value = score(scorer, r, expected.get(r.itemId));
      if (value === null || !Number.isFinite(value)) continue;
      rows.push({
        runId: run.id,
        scorer: scorer.name,
        variant: r.variant,
        itemId: r.itemId,
        repeat: r.repeat,
        value,
      });
    }
  }
  return rows;
}

/**
 * The results by variant, then item, each list in repeat order (the order the statistics sum
 * in): grouped once, so each scorer's values are one list per (variant, item).
 */
function byVariantAndItem(results: StoredResult[], repeats: number) {
  const ordered: StoredResult[][] = Array.from({ length: repeats }, () => []);
  const rest: StoredResult[] = [];
  for (const r of results) (ordered[r.repeat] ?? rest).push(r);
  rest.sort((a, b) => a.repeat - b.repeat);
  ordered.push(rest);
  const groups = new Map<string, Map<string, StoredResult[]>>();
  for (const bucket of ordered) {
    for (const r of bucket) {
      let byItem = groups.get(r.variant);
      if (byItem === undefined) {
        byItem = new Map();
        groups.set(r.variant, byItem);
      }
      const list = byItem.get(r.itemId);
      if (list === undefined) byItem.set(r.itemId, [r]);
      else list.push(r);
    }
  }
  return groups;
}

/** Results scored between two turns of the event loop. */
const YIELD_EVERY = 20_000;

export interface BuiltinScoring {
  scorers: Scorer[];
  values: ScoreValues;
  coverage: Coverage;
}

/**
 * Every built-in scorer's value for every result (the judge's come later, through its queue),
 * with the run's coverage and its scorers as they will be reported.
 */
export async function scoreBuiltins(db: Database, run: RunRow): Promise<BuiltinScoring> {
  const items = await pinnedItems(db, run);
  const expected = new Map(items.map((i) => [i.id, i.expected]));
  const declared = run.scorers as unknown as Scorer[];
  const results = await storedResults(db, run.id, {
    customScores: declared.some((s) => s.kind === 'custom'),
  });
  const scorers = activeScorers(declared, results);
  const groups = byVariantAndItem(results, run.repeats);
  const values: ScoreValues = new Map();
  let scored = 0;
  for (const scorer of scorers) {
    if (isJudge(scorer)) continue;
    const byVariant = new Map<string, Map<string, number[]>>();
    for (const [variant, byItem] of groups) {
      const ysByItem = new Map<string, number[]>();
      for (const [item, list] of byItem) {
        // A million results take seconds to score: the process keeps answering meanwhile.
        scored += list.length;
        if (scored >= YIELD_EVERY) {
          scored = 0;
          await new Promise((resolve) => setImmediate(resolve));
        }
        const want = expected.get(item);
        const ys: number[] = [];
        for (const r of list) {
          const value = score(scorer, r, want);
          if (value !== null && Number.isFinite(value)) ys.push(value);
        }
        if (ys.length > 0) ysByItem.set(item, ys);
      }
      if (ysByItem.size > 0) byVariant.set(variant, ysByItem);
    }
    if (byVariant.size > 0) values.set(scorer.name, byVariant);
  }
  const coverage = coverageOf(
    run,
    items.map((i) => i.id),
    results,
  );
  return { scorers, values, coverage };
}

/**
 * Stores the run's scorers as reported, and removes any built-in score rows an earlier version
 * stored (the judge's are kept, each was paid for). False when the lease was lost meanwhile.
 */
export async function storeBuiltins(
  db: Database,
  claim: Claim,
  scoring: BuiltinScoring,
): Promise<boolean> {
  const judged = scoring.scorers.filter(isJudge).map((s) => s.name);
  return db.transaction(async (tx) => {
    if (!(await stillHolding(tx, claim.run.id, claim.holder))) return false;
    await tx
      .delete(offlineScores)
      .where(
        and(
          eq(offlineScores.runId, claim.run.id),
          judged.length === 0 ? undefined : notInArray(offlineScores.scorer, judged),
        ),
      );
    await tx
      .update(offlineRuns)
      .set({ scorers: scoring.scorers as unknown as Record<string, unknown>[] })
      .where(eq(offlineRuns.id, claim.run.id));
    return true;
  });
}

/** The stored scores of some of the run's scorers, as the statistics read them. */
export async function storedValues(
  db: Database,
  runId: string,
  scorers: string[],
): Promise<ScoreValues> {
  if (scorers.length === 0) return new Map();
  const rows = await db
    .select({
      scorer: offlineScores.scorer,
      variant: offlineScores.variant,
      itemId: offlineScores.itemId,
      value: offlineScores.value,
    })
    .from(offlineScores)
    .where(and(eq(offlineScores.runId, runId), inArray(offlineScores.scorer, scorers)))
    .orderBy(asc(offlineScores.repeat));
  const values: ScoreValues = new Map();
  for (const r of rows) addValue(values, r.scorer, r.variant, r.itemId, r.value);
  return values;
}

/** The statistics of the run from its scores (docs/decisions/offline-evaluation.md#offline-statistics). */
export function evaluationOf(
  run: RunRow,
  scorers: Scorer[],
  values: ScoreValues,
  coverage: Coverage,
): RunResult {
  const evaluation = evaluateOffline({
    scorers: scorers.map((s) => ({
      name: s.name,
      direction: s.direction,
      margin: s.non_inferiority_margin,
    })),
    variants: run.variants,
    repeats: run.repeats,
    values,
  });
  return {
    coverage,
    comparisons: evaluation.comparisons,
    summary: evaluation.summary,
    gates: evaluation.gates,
  };
}

/**
 * Ends scoring and, in the same transaction, queues `offline_run.completed`: a run taken over
 * meanwhile ends nothing and tells nothing (its new holder does both).
 */
function finishAndTell(
  db: Database,
  claim: Claim,
  end: Parameters<typeof finishScoring>[3],
  now: Date,
): Promise<RunRow | null> {
  return db.transaction(async (tx) => {
    const row = await finishScoring(tx, claim.run.id, claim.holder, end);
    if (row !== null) await enqueueOfflineRunEvent(tx, row, now);
    return row;
  });
}

/** Ends the run `complete` with its statistics; null when the lease was lost meanwhile. */
export function markComplete(
  db: Database,
  claim: Claim,
  scorers: Scorer[],
  result: RunResult,
  now: Date,
): Promise<RunRow | null> {
  return finishAndTell(
    db,
    claim,
    {
      status: 'complete',
      scorers: scorers as unknown as Record<string, unknown>[],
      result: result as unknown as Record<string, unknown>,
      completedAt: now,
    },
    now,
  );
}

/** Ends the run `failed` with the reason; null when the lease was lost meanwhile. */
export function markFailed(
  db: Database,
  claim: Claim,
  reason: string,
  now: Date,
): Promise<RunRow | null> {
  return finishAndTell(
    db,
    claim,
    { status: 'failed', failureReason: reason, completedAt: now },
    now,
  );
}
