import { evaluateOffline } from '@arbiter/stats';
import { eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/connect.ts';
import { datasetItems, offlineResults, offlineRuns, offlineScores } from '../../db/schema.ts';
import { inVersion } from '../datasets/items-page.ts';
import { MEASURED_SCORERS, type Scorer } from './run-schema.ts';
import { type ScoredResult, score } from './scorers.ts';
import { loadRun, present, type Run, type RunRow, receivedCount } from './service.ts';

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

export async function storedResults(
  db: Pick<Database, 'select'>,
  runId: string,
): Promise<StoredResult[]> {
  const rows = await db
    .select({
      itemId: offlineResults.itemId,
      variant: offlineResults.variant,
      repeat: offlineResults.repeat,
      output: sql<string | null>`${offlineResults.output}::text`,
      error: offlineResults.error,
      latencyMs: offlineResults.latencyMs,
      inputTokens: offlineResults.inputTokens,
      outputTokens: offlineResults.outputTokens,
      cost: offlineResults.cost,
      model: offlineResults.model,
      scores: offlineResults.scores,
    })
    .from(offlineResults)
    .where(eq(offlineResults.runId, runId));
  return rows.map((r) => ({ ...r, output: r.output === null ? null : JSON.parse(r.output) }));
}

/**
 * The scorers a completed run reports: the ones asked for, then each measured one that is not
 * listed and that some result carries (error_rate whenever there is a result).
 */
function activeScorers(declared: Scorer[], results: StoredResult[]): Scorer[] {
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

function coverageOf(run: RunRow, itemIds: string[], results: StoredResult[]) {
  const have = new Set(results.map((r) => `${r.variant}\u0000${r.itemId}\u0000${r.repeat}`));
  const missing: Array<{ item_id: string; variant: string; repeat: number }> = [];
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
  return {
    expected_results: run.expectedResults,
    received_results: results.length,
    missing_results: run.expectedResults - results.length,
    failed_results: results.filter((r) => r.error !== null).length,
    missing,
  };
}

/** Scores every result, stores the scores and computes the run's statistics. */
async function scoreAndEvaluate(db: Database, run: RunRow) {
  const items = await pinnedItems(db, run);
  const expected = new Map(items.map((i) => [i.id, i.expected]));
  const results = await storedResults(db, run.id);
  const scorers = activeScorers(run.scorers as unknown as Scorer[], results);
  const values = new Map<string, Map<string, Map<string, number[]>>>();
  const rows: Array<typeof offlineScores.$inferInsert> = [];
  const ordered = [...results].sort((a, b) => a.repeat - b.repeat);
  for (const scorer of scorers) {
    const byVariant = new Map<string, Map<string, number[]>>();
    values.set(scorer.name, byVariant);
    for (const r of ordered) {
      const value = score(scorer, r, expected.get(r.itemId));
      if (value === null || !Number.isFinite(value)) continue;
      const byItem = byVariant.get(r.variant) ?? new Map<string, number[]>();
      byVariant.set(r.variant, byItem);
      const ys = byItem.get(r.itemId);
      if (ys === undefined) byItem.set(r.itemId, [value]);
      else ys.push(value);
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
    scorers,
    rows,
    result: {
      coverage: coverageOf(
        run,
        items.map((i) => i.id),
        results,
      ),
      comparisons: evaluation.comparisons,
      summary: evaluation.summary,
      gates: evaluation.gates,
    },
  };
}

/**
 * Completes a run: `scoring` while the scorers run, then `complete` with the coverage and the
 * statistics, or `failed` with the reason. A run already past `running` is answered as it is.
 */
export async function completeRun(
  db: Database,
  orgId: string,
  runId: string,
  now: () => Date,
): Promise<Run> {
  const found = await loadRun(db, orgId, runId);
  const started = await db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(offlineRuns)
      .where(eq(offlineRuns.id, found.id))
      .for('update');
    if (row?.status !== 'running') return null;
    const [updated] = await tx
      .update(offlineRuns)
      .set({ status: 'scoring' })
      .where(eq(offlineRuns.id, found.id))
      .returning();
    return updated!;
  });
  if (started === null)
    return present(await loadRun(db, orgId, runId), await receivedCount(db, found.id));
  let finished: RunRow;
  try {
    const { scorers, rows, result } = await scoreAndEvaluate(db, started);
    finished = await db.transaction(async (tx) => {
      await tx.delete(offlineScores).where(eq(offlineScores.runId, started.id));
      for (let i = 0; i < rows.length; i += 1000)
        await tx.insert(offlineScores).values(rows.slice(i, i + 1000));
      const [row] = await tx
        .update(offlineRuns)
        .set({
          status: 'complete',
          scorers: scorers as unknown as Record<string, unknown>[],
          result,
          completedAt: now(),
        })
        .where(eq(offlineRuns.id, started.id))
        .returning();
      return row!;
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const [row] = await db
      .update(offlineRuns)
      .set({ status: 'failed', failureReason: `Scoring failed: ${reason}`, completedAt: now() })
      .where(eq(offlineRuns.id, started.id))
      .returning();
    finished = row!;
  }
  return present(finished, await receivedCount(db, finished.id));
}
