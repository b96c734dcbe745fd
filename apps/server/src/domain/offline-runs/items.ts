import { eq } from 'drizzle-orm';
import type { Database } from '../../db/connect.ts';
import { offlineScores } from '../../db/schema.ts';
import { DomainError } from '../outcomes.ts';
import {
  builtinScoreRows,
  pinnedItems,
  type ResultMeasures,
  type StoredResult,
  storedResults,
} from './complete.ts';
import type { Scorer } from './run-schema.ts';
import { loadRun, type RunRow } from './service.ts';

export const RUN_ITEMS_DEFAULT = 50;
export const RUN_ITEMS_MAX = 500;
export type ItemSort = 'regressions' | 'improvements' | 'item';

export interface ResultView extends ResultMeasures {
  output: unknown;
  scores: Record<string, number>;
}

export interface RunItemsRequest {
  treatment?: string;
  scorer?: string;
  sort: ItemSort;
  limit: number;
  startingAfter?: string;
}

function queryError(parameter: string, detail: string) {
  return new DomainError('offline-run-invalid', `${parameter} ${detail}`, {
    errors: [{ parameter, detail }],
  });
}

const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The treatment and scorer the view compares: those asked for, else the first of each. */
function viewOf(run: RunRow, request: RunItemsRequest) {
  const [baseline, ...treatments] = run.variants as [string, ...string[]];
  const treatment = request.treatment ?? treatments[0] ?? null;
  if (request.treatment !== undefined && !treatments.includes(request.treatment))
    throw queryError(
      'treatment',
      `must be one of the run's treatments (${treatments.join(', ') || 'none'})`,
    );
  const scorers = run.scorers as unknown as Scorer[];
  const scorer = scorers.find((s) => s.name === (request.scorer ?? scorers[0]?.name)) ?? null;
  if (request.scorer !== undefined && scorer === null)
    throw queryError(
      'scorer',
      `must be one of the run's scorers (${scorers.map((s) => s.name).join(', ')})`,
    );
  return { baseline, treatment, scorer };
}

type ScoreRow = typeof offlineScores.$inferSelect;

/** Each result's scores by scorer, and y(v,i) on the chosen scorer. */
function indexScores(scores: ScoreRow[], scorer: string | null) {
  const byResult = new Map<string, Record<string, number>>();
  const sums = new Map<string, { s: number; k: number }>();
  for (const s of scores) {
    const key = `${s.variant}\u0000${s.itemId}\u0000${s.repeat}`;
    const held = byResult.get(key) ?? {};
    held[s.scorer] = s.value;
    byResult.set(key, held);
    if (s.scorer !== scorer) continue;
    const at = `${s.variant}\u0000${s.itemId}`;
    const sum = sums.get(at) ?? { s: 0, k: 0 };
    sum.s += s.value;
    sum.k += 1;
    sums.set(at, sum);
  }
  const mean = (variant: string | null, item: string) => {
    const sum = variant === null ? undefined : sums.get(`${variant}\u0000${item}`);
    return sum === undefined ? null : sum.s / sum.k;
  };
  const of = (variant: string, item: string, repeat: number) =>
    byResult.get(`${variant}\u0000${item}\u0000${repeat}`) ?? {};
  return { mean, of };
}

function viewResult(r: StoredResult, scores: Record<string, number>): ResultView {
  return {
    repeat: r.repeat,
    output: r.output ?? null,
    error: r.error,
    latency_ms: r.latencyMs,
    input_tokens: r.inputTokens,
    output_tokens: r.outputTokens,
    cost: r.cost,
    model: r.model,
    scores,
  };
}

type ItemRow = { id: string; difference: number | null };

/** Worst (regressions) or best (improvements) first by the direction; no difference last. */
function sortRows(rows: ItemRow[], sort: ItemSort, direction: 'increase' | 'decrease') {
  if (sort === 'item') return;
  const sign = direction === 'decrease' ? -1 : 1;
  const worstFirst = sort === 'regressions' ? 1 : -1;
  rows.sort((a, b) => {
    if (a.difference === null || b.difference === null) {
      if (a.difference === b.difference) return byteOrder(a.id, b.id);
      return a.difference === null ? 1 : -1;
    }
    const by = worstFirst * (sign * a.difference - sign * b.difference);
    return by !== 0 ? by : byteOrder(a.id, b.id);
  });
}

/** Where the page starts: after `starting_after` in the order (by id: after where it would be). */
function startOf(rows: ItemRow[], request: RunItemsRequest): number {
  const after = request.startingAfter;
  if (after === undefined) return 0;
  const at = rows.findIndex((r) => r.id === after);
  if (at >= 0) return at + 1;
  if (request.sort !== 'item') throw queryError('starting_after', 'is not an item of this run');
  const next = rows.findIndex((r) => r.id > after);
  return next < 0 ? rows.length : next;
}

/**
 * The run's items with every variant's results per repeat (output, error, measurements and
 * every scorer's value) and the item's difference y(t,i) − y(c,i) on one scorer and treatment
 * (null when either has no value). `regressions` puts the items worst for the treatment by the
 * scorer's direction first, `improvements` the best first (items without a difference last,
 * ties by id); `item` is by id. `starting_after` is the last id of the previous page.
 */
export async function listRunItems(
  db: Database,
  orgId: string,
  runId: string,
  request: RunItemsRequest,
) {
  const run = await loadRun(db, orgId, runId);
  const { baseline, treatment, scorer } = viewOf(run, request);
  const items = await pinnedItems(db, run);
  const results = await storedResults(db, run.id);
  const stored = await db.select().from(offlineScores).where(eq(offlineScores.runId, run.id));
  const expected = new Map(items.map((i) => [i.id, i.expected]));
  const scores = [...stored, ...builtinScoreRows(run, results, expected)];
  const index = indexScores(scores, scorer?.name ?? null);
  const byItem = new Map<string, StoredResult[]>();
  for (const r of [...results].sort((a, b) => a.repeat - b.repeat)) {
    const list = byItem.get(r.itemId) ?? [];
    list.push(r);
    byItem.set(r.itemId, list);
  }
  const rows = items.map((item) => {
    const c = index.mean(baseline, item.id);
    const t = index.mean(treatment, item.id);
    const variants: Record<string, ResultView[]> = {};
    for (const v of run.variants) variants[v] = [];
    for (const r of byItem.get(item.id) ?? []) {
      variants[r.variant]?.push(viewResult(r, index.of(r.variant, item.id, r.repeat)));
    }
    const difference = c === null || t === null ? null : t - c;
    return {
      id: item.id,
      input: item.input,
      expected_output: item.expected,
      group: item.group,
      difference,
      variants,
    };
  });
  sortRows(rows, request.sort, scorer?.direction ?? 'increase');
  const start = startOf(rows, request);
  return {
    data: rows.slice(start, start + request.limit),
    has_more: start + request.limit < rows.length,
    treatment,
    scorer: scorer?.name ?? null,
    sort: request.sort,
  };
}
