import { finished } from 'node:stream/promises';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { arrayLiteral } from '../../db/array-literal.ts';
import type { Database, Transaction } from '../../db/connect.ts';
import { copyLine } from '../../db/copy-text.ts';
import { DEADLOCK_DETECTED, sqlStateOf, UNIQUE_VIOLATION } from '../../db/pg-error-codes.ts';
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

/** A row's properties in canonical's order, each with its `"key":` text. */
const ROW_KEYS = Object.keys(ResultRowSchema.properties)
  .sort()
  .map((key) => ({ key: key as keyof Row, text: `${JSON.stringify(key)}:` }));

/**
 * canonical(row) for a row that passed the schema, the same text in one pass: its keys can only
 * be the schema's (no additional properties), so they need no sorting; `output` comes already
 * as its compact JSON when it holds no object (a string, a number, ...), which canonical leaves
 * as JSON.stringify writes it.
 */
export function canonicalRow(row: Row, outputJson: string | undefined): string {
  let out = '{';
  for (const { key, text } of ROW_KEYS) {
    const value = row[key];
    if (value === undefined) continue;
    if (out.length > 1) out += ',';
    out += text;
    if (
      key === 'output' &&
      outputJson !== undefined &&
      (value === null || typeof value !== 'object')
    )
      out += outputJson;
    else
      out += value !== null && typeof value === 'object' ? canonical(value) : JSON.stringify(value);
  }
  return `${out}}`;
}

function schemaMessage(): string {
  return (checkRow.errors ?? [])
    .map((e) => `${e.instancePath || '/'}: ${e.message ?? 'is not valid'}`)
    .join('; ');
}

/** Why the row cannot be a result of this run, or null. */
function rowProblem(
  row: Row,
  outputJson: string | undefined,
  run: { variants: string[]; repeats: number; custom: Set<string> },
) {
  const problems: string[] = [];
  if (!run.variants.includes(row.variant))
    problems.push(
      `/variant: "${row.variant}" is not a variant of this run (${run.variants.join(', ')})`,
    );
  if (row.repeat >= run.repeats)
    problems.push(`/repeat: the run has ${run.repeats} repeats, counted from 0`);
  if (row.scores !== undefined) {
    for (const [name, value] of Object.entries(row.scores)) {
      if (!run.custom.has(name)) problems.push(`/scores/${name}: not a custom scorer of this run`);
      else if (!Number.isFinite(value)) problems.push(`/scores/${name}: is not a finite number`);
    }
  }
  if (row.output !== undefined && row.output !== null) {
    if (typeof row.output === 'string') {
      if (!isStorableText(row.output)) problems.push(`/output: ${TEXT_RULE_MESSAGE}`);
    } else if (typeof row.output === 'object') {
      const wrapped = freeFormJsonProblem({ output: row.output });
      if (wrapped !== null) problems.push(`${wrapped.pointer}: ${wrapped.detail}`);
    }
    // UTF-8 takes at most 3 bytes per UTF-16 unit: most outputs need no count
    const json = outputJson as string;
    if (json.length * 3 > OUTPUT_MAX_BYTES && Buffer.byteLength(json) > OUTPUT_MAX_BYTES)
      problems.push(`/output: more than ${OUTPUT_MAX_BYTES / 1024} KiB of JSON`);
  }
  return problems.length === 0 ? null : problems.join('; ');
}

interface ValidRow {
  index: number;
  row: Row;
  fingerprint: string;
  /** The output's compact JSON as stored; null when the row has none. */
  output: string | null;
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
    const outputJson = row.output === undefined ? undefined : JSON.stringify(row.output);
    const problem = rowProblem(row, outputJson, shape);
    if (problem !== null) answer.errors.push({ index, message: problem });
    else
      valid.push({
        index,
        row,
        fingerprint: canonicalRow(row, outputJson),
        output: row.output === undefined || row.output === null ? null : (outputJson as string),
      });
  });
  return valid;
}

const keyOf = (itemId: string, variant: string, repeat: number) =>
  `${itemId}\u0000${variant}\u0000${repeat}`;

/** At most this many item ids are kept in memory, over all the versions held. */
const PINNED_IDS_MAX = 1_000_000;

/**
 * The item ids of pinned dataset versions, loaded whole on a run's first upload and kept: a
 * version never changes once made (a change makes the next one), so the set is never stale.
 * By database (a process has one; tests open several), then by `dataset:version`, oldest
 * use evicted first. A version larger than a tenth of the bound is looked up per batch instead.
 */
const pinnedIds = new WeakMap<
  Database,
  Map<string, { ids: Promise<ReadonlySet<string>>; size: number }>
>();

function cachedIds(db: Database, run: RunRow): Promise<ReadonlySet<string>> | null {
  if (run.itemCount > PINNED_IDS_MAX / 10) return null;
  let byVersion = pinnedIds.get(db);
  if (byVersion === undefined) {
    byVersion = new Map();
    pinnedIds.set(db, byVersion);
  }
  const versions = byVersion;
  const key = `${run.datasetId}:${run.datasetVersion}`;
  const held = versions.get(key);
  if (held !== undefined) {
    versions.delete(key);
    versions.set(key, held);
    return held.ids;
  }
  const ids = db
    .select({ id: datasetItems.itemId })
    .from(datasetItems)
    .where(inVersion(run.datasetId, run.datasetVersion))
    .then((rows) => new Set(rows.map((r) => r.id)) as ReadonlySet<string>);
  // a failed load is not kept: the next batch tries again
  ids.catch(() => {
    if (versions.get(key)?.ids === ids) versions.delete(key);
  });
  versions.set(key, { ids, size: run.itemCount });
  let total = 0;
  for (const v of versions.values()) total += v.size;
  for (const [k, v] of versions) {
    if (total <= PINNED_IDS_MAX || k === key) break;
    total -= v.size;
    versions.delete(k);
  }
  return ids;
}

/** The run's row locked for the batch; refused unless the run is still taking results. */
function refuseUnlessOpen(run: RunRow, status: string | undefined): void {
  if (status !== 'running') {
    throw new DomainError(
      'offline-run-not-open',
      `Run ${run.id} is ${status ?? 'gone'}: it takes results only while running`,
    );
  }
}

async function lockOpenRun(tx: Transaction, run: RunRow): Promise<void> {
  const [locked] = await tx
    .select({ status: offlineRuns.status })
    .from(offlineRuns)
    .where(eq(offlineRuns.id, run.id))
    .for('update');
  refuseUnlessOpen(run, locked?.status);
}

/** The batch's item ids the pinned version holds, and the fingerprints already stored. */
async function existing(tx: Transaction, run: RunRow, ids: string[], pinned: boolean) {
  const known = new Set<string>();
  const stored = new Map<string, string>();
  if (ids.length === 0) return { known, stored };
  if (!pinned) {
    const items = await tx
      .select({ id: datasetItems.itemId })
      .from(datasetItems)
      .where(and(inVersion(run.datasetId, run.datasetVersion), inArray(datasetItems.itemId, ids)));
    for (const item of items) known.add(item.id);
  }
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

const nullable = <T>(v: T | undefined) => (v === undefined ? null : v);

/**
 * The batch's new results in one statement (PGlite): a text array per column through `unnest`,
 * rather than a parameter per value (docs/decisions/offline-evaluation.md#offline-runs). JSON columns travel as
 * their text and are cast.
 */
async function insertResults(tx: Transaction, runId: string, inserts: ValidRow[]): Promise<void> {
  const col = (f: (i: ValidRow) => string | number | null) => arrayLiteral(inserts.map(f));
  await tx.execute(sql`insert into offline_results (run_id, item_id, variant, repeat, output,
      error, latency_ms, input_tokens, output_tokens, cost, model, scores, fingerprint)
    select ${runId}::uuid, item, variant, rep, output::jsonb, error, latency, input_tokens,
      output_tokens, cost, model, scores::jsonb, fingerprint
    from unnest(
      ${col((i) => i.row.item_id)}::text[], ${col((i) => i.row.variant)}::text[],
      ${col((i) => i.row.repeat)}::int[], ${col((i) => i.output)}::text[],
      ${col((i) => nullable(i.row.error))}::text[], ${col((i) => nullable(i.row.latency_ms))}::float8[],
      ${col((i) => nullable(i.row.input_tokens))}::bigint[], ${col((i) => nullable(i.row.output_tokens))}::bigint[],
      ${col((i) => nullable(i.row.cost))}::float8[], ${col((i) => nullable(i.row.model))}::text[],
      ${col((i) => JSON.stringify(i.row.scores ?? {}))}::text[], ${col((i) => i.fingerprint)}::text[]
    ) as t(item, variant, rep, output, error, latency, input_tokens, output_tokens, cost, model,
      scores, fingerprint)`);
}

/** A row as a line of COPY text, columns as in COPY_RESULTS. */
function resultLine(runId: string, { row, output, fingerprint }: ValidRow): string {
  const scores = row.scores === undefined ? '{}' : JSON.stringify(row.scores);
  return copyLine([
    runId,
    row.item_id,
    row.variant,
    row.repeat,
    output,
    row.error,
    row.latency_ms,
    row.input_tokens,
    row.output_tokens,
    row.cost,
    row.model,
    scores,
    fingerprint,
  ]);
}

const COPY_RESULTS = `copy offline_results (run_id, item_id, variant, repeat, output, error,
  latency_ms, input_tokens, output_tokens, cost, model, scores, fingerprint) from stdin`;

/** Which of the batch's rows are new; counts duplicates, conflicts and unknown items. */
function sortOut(
  run: RunRow,
  valid: ValidRow[],
  known: ReadonlySet<string>,
  stored: Map<string, string>,
  answer: ResultsAnswer,
): ValidRow[] {
  const inserts: ValidRow[] = [];
  for (const v of valid) {
    const { index, row, fingerprint } = v;
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
    inserts.push(v);
  }
  return inserts;
}

/** Stores the new rows of the batch (PGlite): the statement path, in a Drizzle transaction. */
async function storeBatch(
  tx: Transaction,
  run: RunRow,
  valid: ValidRow[],
  pinned: ReadonlySet<string> | null,
  answer: ResultsAnswer,
) {
  await lockOpenRun(tx, run);
  const ids = [...new Set(valid.map((v) => v.row.item_id))];
  const { known, stored } = await existing(tx, run, ids, pinned !== null);
  const inserts = sortOut(run, valid, pinned ?? known, stored, answer);
  if (inserts.length > 0) await insertResults(tx, run.id, inserts);
}

/** Another upload of the run stored (or holds) one of the rows this COPY writes. */
function metAnotherUpload(error: unknown): boolean {
  const code = sqlStateOf(error);
  return code === UNIQUE_VIOLATION || code === DEADLOCK_DETECTED;
}

/**
 * Stores the new rows of the batch on a PostgreSQL server, in two round trips on one pooled
 * connection: `begin`, the run's row locked and the fingerprints already stored for the
 * batch's items (one simple-protocol query, values inlined and escaped); then the new rows by
 * COPY and `commit` (docs/decisions/offline-evaluation.md#offline-runs).
 *
 * The run's row is locked `for share`: `complete` (which locks it `for update`) waits for the
 * uploads in flight and none starts once it has, while uploads of one run write side by side.
 * Two of them may then both find a row new: the primary key lets one COPY store it and fails
 * the other (or PostgreSQL ends a deadlock of two COPYs), whose batch is then done again under
 * `for update`, alone, where its lookup sees every row stored: counted as a duplicate or a
 * conflict, the first one kept, as if the uploads had taken turns.
 */
async function storeBatchByCopy(
  pool: pg.Pool,
  run: RunRow,
  valid: ValidRow[],
  pinned: ReadonlySet<string> | null,
  answer: ResultsAnswer,
) {
  // written before the run's row is locked: the lock is held only for the lookup and the COPY
  const lines = new Map<ValidRow, string>();
  for (const v of valid) lines.set(v, resultLine(run.id, v));
  const shared = await copyAttempt(pool, run, valid, pinned, lines, 'share');
  const done = shared ?? (await copyAttempt(pool, run, valid, pinned, lines, 'update'));
  if (done === null) throw new Error('an upload under the run’s exclusive lock met another');
  answer.accepted += done.accepted;
  answer.duplicates += done.duplicates;
  answer.conflicts += done.conflicts;
  answer.errors.push(...done.errors);
}

/**
 * copyAttempt's first round trip: the transaction begun, the run's row locked, the batch's
 * items' stored rows and, without pinned ids, which of the items the pinned version holds.
 */
function lookupSql(
  client: pg.PoolClient,
  run: RunRow,
  valid: ValidRow[],
  pinned: ReadonlySet<string> | null,
  lock: 'share' | 'update',
): string {
  const runId = client.escapeLiteral(run.id);
  const ids = client.escapeLiteral(arrayLiteral([...new Set(valid.map((v) => v.row.item_id))]));
  const items =
    pinned === null
      ? `; select item_id from dataset_items where dataset_id = ${client.escapeLiteral(run.datasetId)}
        and valid_from <= ${Number(run.datasetVersion)}
        and (valid_to is null or valid_to > ${Number(run.datasetVersion)})
        and item_id = any(${ids}::text[])`
      : '';
  return `begin; select status from offline_runs where id = ${runId} for ${lock};
    select item_id, variant, repeat, fingerprint from offline_results
      where run_id = ${runId} and item_id = any(${ids}::text[])${items}`;
}

/** One try of storeBatchByCopy: its counts, or null when it met another upload's rows. */
async function copyAttempt(
  pool: pg.Pool,
  run: RunRow,
  valid: ValidRow[],
  pinned: ReadonlySet<string> | null,
  lines: Map<ValidRow, string>,
  lock: 'share' | 'update',
): Promise<ResultsAnswer | null> {
  const answer: ResultsAnswer = { accepted: 0, duplicates: 0, conflicts: 0, errors: [] };
  const client = await pool.connect();
  let broken: Error | undefined;
  let open = false;
  try {
    open = true;
    const results = (await client.query(
      lookupSql(client, run, valid, pinned, lock),
    )) as unknown as pg.QueryResult[];
    refuseUnlessOpen(run, results[1]?.rows[0]?.status);
    const stored = new Map<string, string>();
    for (const e of results[2]?.rows ?? [])
      stored.set(keyOf(e.item_id, e.variant, e.repeat), e.fingerprint);
    const known = pinned ?? new Set<string>((results[3]?.rows ?? []).map((r) => r.item_id));
    const inserts = sortOut(run, valid, known, stored, answer);
    if (inserts.length === 0) {
      await client.query('commit');
    } else {
      const copy = client.query(copyFrom(`${COPY_RESULTS}; commit`));
      let text = '';
      for (const v of inserts) text += lines.get(v);
      copy.end(text);
      await finished(copy);
    }
    open = false;
    return answer;
  } catch (error) {
    const retry = lock === 'share' && metAnotherUpload(error);
    if (open && (retry || error instanceof DomainError)) {
      // a refusal or a row met: the transaction is sound to end, the connection reusable
      try {
        await client.query('rollback');
      } catch (rollbackError) {
        broken = rollbackError as Error;
      }
    } else if (open) {
      // a connection in an unknown state is closed, never handed out again
      broken = error as Error;
    }
    if (retry) return null;
    throw error;
  } finally {
    client.release(broken);
  }
}

/**
 * Stores a batch of results. Rows are independent: a bad row is an error by its index and
 * skipped. A row is identified by (item, variant, repeat): the same row again is a duplicate, a
 * different one a conflict, and the first one stored is kept. Results are not events: nothing
 * is metered and no online analysis reads them. None lands once `complete` has begun (the run's
 * row is locked). On a PostgreSQL server (`pool`) the new rows go by COPY, uploads of a run
 * side by side; on PGlite by one `unnest` statement, uploads taking turns.
 */
export async function uploadResults(
  db: Database,
  pool: pg.Pool | null,
  orgId: string,
  runId: string,
  rows: readonly unknown[],
): Promise<ResultsAnswer> {
  const answer: ResultsAnswer = { accepted: 0, duplicates: 0, conflicts: 0, errors: [] };
  const run = await loadRun(db, orgId, runId);
  const valid = checkRows(rows, run, answer);
  const pinned = valid.length === 0 ? null : await cachedIds(db, run);
  if (pool === null) await db.transaction((tx) => storeBatch(tx, run, valid, pinned, answer));
  else await storeBatchByCopy(pool, run, valid, pinned, answer);
  answer.errors.sort((a, b) => a.index - b.index);
  return answer;
}
