import { and, eq, inArray, sql } from 'drizzle-orm';
import { arrayLiteral } from '../../db/array-literal.ts';
import type { Database, Transaction } from '../../db/connect.ts';
import { datasetItems, offlineResults, offlineRuns } from '../../db/schema.ts';
import { freeFormJsonProblem } from '../../schemas/free-form-json.ts';
import { isStorableText, TEXT_RULE_MESSAGE } from '../../schemas/text.ts';
import { compileBodyValidator } from '../../schemas/validators.ts';
import { inVersion } from '../datasets/items-page.ts';
import { DomainError } from '../outcomes.ts';
import { ResultRowSchema, type Scorer } from './run-schema.ts';
import { loadRun, type RunRow } from './service.ts';

/** An output may be at most this much compact JSON. */
export const OUTPUT_MAX_BYTES = 256 * 1024;

const checkRow = compileBodyValidator(ResultRowSchema);
const utf8 = new TextEncoder();

export interface ResultsAnswer {
  accepted: number;
  duplicates: number;
  conflicts: number;
  errors: Array<{ index: number; message: string }>;
}

interface Row {
  item_id: string;
  variant: string;
  repeat: number;
  output?: unknown;
  error?: string | null;
  latency_ms?: number;
  input_tokens?: number;
  output_tokens?: number;
  cost?: number;
  model?: string;
  scores?: Record<string, number>;
}

/** JSON with object keys sorted, so the same row always has the same text. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

function schemaMessage(): string {
  return (checkRow.errors ?? [])
    .map((e) => `${e.instancePath || '/'}: ${e.message ?? 'is not valid'}`)
    .join('; ');
}

/** Why the row cannot be a result of this run, or null. */
function rowProblem(row: Row, run: { variants: string[]; repeats: number; custom: Set<string> }) {
  const problems: string[] = [];
  if (!run.variants.includes(row.variant))
    problems.push(
      `/variant: "${row.variant}" is not a variant of this run (${run.variants.join(', ')})`,
    );
  if (row.repeat >= run.repeats)
    problems.push(`/repeat: the run has ${run.repeats} repeats, counted from 0`);
  for (const [name, value] of Object.entries(row.scores ?? {})) {
    if (!run.custom.has(name)) problems.push(`/scores/${name}: not a custom scorer of this run`);
    else if (!Number.isFinite(value)) problems.push(`/scores/${name}: is not a finite number`);
  }
  if (row.output !== undefined && row.output !== null) {
    if (typeof row.output === 'string') {
      if (!isStorableText(row.output)) problems.push(`/output: ${TEXT_RULE_MESSAGE}`);
    } else if (typeof row.output === 'object') {
      const wrapped = freeFormJsonProblem({ output: row.output });
      if (wrapped !== null) problems.push(`${wrapped.pointer}: ${wrapped.detail}`);
    }
    if (utf8.encode(JSON.stringify(row.output)).length > OUTPUT_MAX_BYTES)
      problems.push(`/output: more than ${OUTPUT_MAX_BYTES / 1024} KiB of JSON`);
  }
  return problems.length === 0 ? null : problems.join('; ');
}

interface ValidRow {
  index: number;
  row: Row;
  fingerprint: string;
}

/** Each row checked on its own: the valid ones, and an error by index for the others. */
function checkRows(rows: readonly unknown[], run: RunRow, answer: ResultsAnswer): ValidRow[] {
  const custom = new Set(
    (run.scorers as unknown as Scorer[]).filter((s) => s.kind === 'custom').map((s) => s.name),
  );
  const shape = { variants: run.variants, repeats: run.repeats, custom };
  const valid: ValidRow[] = [];
  rows.forEach((raw, index) => {
    if (!checkRow(raw)) {
      answer.errors.push({ index, message: schemaMessage() });
      return;
    }
    const row = raw as Row;
    const problem = rowProblem(row, shape);
    if (problem !== null) answer.errors.push({ index, message: problem });
    else valid.push({ index, row, fingerprint: canonical(row) });
  });
  return valid;
}

const keyOf = (itemId: string, variant: string, repeat: number) =>
  `${itemId}\u0000${variant}\u0000${repeat}`;

/** The run's row locked for the batch; refused unless the run is still taking results. */
async function lockOpenRun(tx: Transaction, run: RunRow): Promise<void> {
  const [locked] = await tx
    .select({ status: offlineRuns.status })
    .from(offlineRuns)
    .where(eq(offlineRuns.id, run.id))
    .for('update');
  if (locked?.status !== 'running') {
    throw new DomainError(
      'offline-run-not-open',
      `Run ${run.id} is ${locked?.status ?? 'gone'}: it takes results only while running`,
    );
  }
}

/** The batch's item ids the pinned version holds, and the fingerprints already stored. */
async function existing(tx: Transaction, run: RunRow, ids: string[]) {
  const known = new Set<string>();
  const stored = new Map<string, string>();
  if (ids.length === 0) return { known, stored };
  const items = await tx
    .select({ id: datasetItems.itemId })
    .from(datasetItems)
    .where(and(inVersion(run.datasetId, run.datasetVersion), inArray(datasetItems.itemId, ids)));
  for (const item of items) known.add(item.id);
  const rows = await tx
    .select({
      itemId: offlineResults.itemId,
      variant: offlineResults.variant,
      repeat: offlineResults.repeat,
      fingerprint: offlineResults.fingerprint,
    })
    .from(offlineResults)
    .where(and(eq(offlineResults.runId, run.id), inArray(offlineResults.itemId, ids)));
  for (const e of rows) stored.set(keyOf(e.itemId, e.variant, e.repeat), e.fingerprint);
  return { known, stored };
}

interface Insert {
  row: Row;
  fingerprint: string;
}

const nullable = <T>(v: T | undefined) => (v === undefined ? null : v);

/**
 * The batch's new results in one statement: a text array per column through `unnest`, rather
 * than a parameter per value (docs/decisions.md#offline-runs). JSON columns travel as their
 * text and are cast.
 */
async function insertResults(tx: Transaction, runId: string, inserts: Insert[]): Promise<void> {
  const col = (f: (i: Insert) => string | number | null) => arrayLiteral(inserts.map(f));
  await tx.execute(sql`insert into offline_results (run_id, item_id, variant, repeat, output,
      error, latency_ms, input_tokens, output_tokens, cost, model, scores, fingerprint)
    select ${runId}::uuid, item, variant, rep, output::jsonb, error, latency, input_tokens,
      output_tokens, cost, model, scores::jsonb, fingerprint
    from unnest(
      ${col((i) => i.row.item_id)}::text[], ${col((i) => i.row.variant)}::text[],
      ${col((i) => i.row.repeat)}::int[],
      ${col((i) => (i.row.output === undefined || i.row.output === null ? null : JSON.stringify(i.row.output)))}::text[],
      ${col((i) => nullable(i.row.error))}::text[], ${col((i) => nullable(i.row.latency_ms))}::float8[],
      ${col((i) => nullable(i.row.input_tokens))}::bigint[], ${col((i) => nullable(i.row.output_tokens))}::bigint[],
      ${col((i) => nullable(i.row.cost))}::float8[], ${col((i) => nullable(i.row.model))}::text[],
      ${col((i) => JSON.stringify(i.row.scores ?? {}))}::text[], ${col((i) => i.fingerprint)}::text[]
    ) as t(item, variant, rep, output, error, latency, input_tokens, output_tokens, cost, model,
      scores, fingerprint)`);
}

/** Stores the new rows of the batch; counts duplicates and conflicts (the first row is kept). */
async function storeBatch(tx: Transaction, run: RunRow, valid: ValidRow[], answer: ResultsAnswer) {
  await lockOpenRun(tx, run);
  const { known, stored } = await existing(tx, run, [...new Set(valid.map((v) => v.row.item_id))]);
  const inserts: Insert[] = [];
  for (const { index, row, fingerprint } of valid) {
    if (!known.has(row.item_id)) {
      answer.errors.push({
        index,
        message: `/item_id: version ${run.datasetVersion} of the run's dataset holds no item "${row.item_id}"`,
      });
      continue;
    }
    const key = keyOf(row.item_id, row.variant, row.repeat);
    const held = stored.get(key);
    if (held !== undefined) {
      if (held === fingerprint) answer.duplicates++;
      else answer.conflicts++;
      continue;
    }
    stored.set(key, fingerprint);
    answer.accepted++;
    inserts.push({ row, fingerprint });
  }
  if (inserts.length > 0) await insertResults(tx, run.id, inserts);
}

/**
 * Stores a batch of results. Rows are independent: a bad row is an error by its index and
 * skipped. A row is identified by (item, variant, repeat): the same row again is a duplicate, a
 * different one a conflict, and the first one stored is kept. Results are not events: nothing
 * is metered and no online analysis reads them. Uploads of one run take turns (its row is
 * locked), and none lands once `complete` has begun.
 */
export async function uploadResults(
  db: Database,
  orgId: string,
  runId: string,
  rows: readonly unknown[],
): Promise<ResultsAnswer> {
  const answer: ResultsAnswer = { accepted: 0, duplicates: 0, conflicts: 0, errors: [] };
  const run = await loadRun(db, orgId, runId);
  const valid = checkRows(rows, run, answer);
  await db.transaction((tx) => storeBatch(tx, run, valid, answer));
  answer.errors.sort((a, b) => a.index - b.index);
  return answer;
}
