import { MODEL_CALL_FIELDS } from '@arbiter/contract';
import { and, asc, eq, gt, gte, lt, or, type SQL, sql } from 'drizzle-orm';
import { type Database, toNumber } from '../../db/connect.ts';
import { events, experiments } from '../../db/schema.ts';
import type { EventShards } from '../../db/shards/every-shard.ts';
import { mergeInOrder } from '../../db/shards/merge-in-order.ts';
import { DAY_MS } from '../../kernel/utc-day.ts';
import { addressed, notFound } from '../experiments/service.ts';
import { MODEL_TEXT_COLUMNS, type ModelTextReader, textInRow } from './model-text.ts';

/**
 * The raw-event export (docs/decisions/ingest.md#raw-event-export): every stored event of one
 * experiment whose `timestamp` falls on one UTC day, one JSON object a line, in the order
 * (timestamp, event id in byte order). It reads keyset pages, each at most PAGE_ROWS events
 * and about PAGE_BYTES of text, and only when the reader asks for more: a day of any size
 * streams in bounded memory (a page per shard). Over several shards each shard's pages come in
 * that order and are merged into it, so the lines are the ones one database gives, byte for byte.
 */
export const PAGE_ROWS = 500;
export const PAGE_BYTES = 4 * 1024 * 1024;
/** Text reads in flight at once (each a GET when the text is in an object store). */
const READS_AT_ONCE = 8;

/** A position in the export's order; `at` is the stored instant as microsecond text. */
interface Cursor {
  at: string;
  eventId: string;
}

/** The stored instant to the microsecond, so a cursor never rounds between two events. */
const atText = sql<string>`to_char(${events.occurredAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
const idBytes = sql`${events.eventId} collate "C"`;
const ORDER = [asc(events.occurredAt), asc(idBytes)];

function after(c: Cursor | null): SQL | undefined {
  if (c === null) return undefined;
  const at = sql`${c.at}::timestamptz`;
  return or(
    gt(events.occurredAt, at),
    and(eq(events.occurredAt, at), sql`${idBytes} > ${c.eventId}`),
  );
}

function upTo(c: Cursor): SQL | undefined {
  const at = sql`${c.at}::timestamptz`;
  return or(
    lt(events.occurredAt, at),
    and(eq(events.occurredAt, at), sql`${idBytes} <= ${c.eventId}`),
  );
}

/** The experiment's id, by id or name, in the org; 404 experiment-not-found otherwise. */
export async function exportedExperimentId(
  db: Database,
  orgId: string,
  idOrName: string,
): Promise<string> {
  const [row] = await db
    .select({ id: experiments.id })
    .from(experiments)
    .where(addressed(orgId, idOrName));
  if (row === undefined) throw notFound(idOrName);
  return row.id;
}

export interface ExportScope {
  orgId: string;
  experimentId: string;
  /** The UTC day, YYYY-MM-DD (checked by the route). */
  day: string;
}

function inScope(scope: ExportScope): SQL | undefined {
  const start = new Date(`${scope.day}T00:00:00.000Z`);
  return and(
    eq(events.orgId, scope.orgId),
    eq(events.experimentId, scope.experimentId),
    gte(events.occurredAt, start),
    lt(events.occurredAt, new Date(start.getTime() + DAY_MS)),
  );
}

/**
 * The last position of the next page: the keys and sizes are read first, and the page ends
 * where its text would pass PAGE_BYTES (never before its first event). Null when nothing is left.
 */
async function pageEnd(
  db: Database,
  scope: ExportScope,
  cursor: Cursor | null,
): Promise<{ end: Cursor; last: boolean } | null> {
  // Text in the store counts by the sizes its row records: a page is bounded either way.
  const bytes = sql<number>`coalesce(octet_length(${events.prompt}), 0) + coalesce(octet_length(${events.response}), 0) + coalesce(${events.promptBytes}, 0) + coalesce(${events.responseBytes}, 0) + coalesce(octet_length(${events.metadata}::text), 0)`;
  const keys = await db
    .select({ at: atText, eventId: events.eventId, bytes })
    .from(events)
    .where(and(inScope(scope), after(cursor)))
    .orderBy(...ORDER)
    .limit(PAGE_ROWS);
  let total = 0;
  let taken = 0;
  for (const key of keys) {
    total += toNumber(key.bytes);
    if (taken > 0 && total > PAGE_BYTES) break;
    taken++;
  }
  const end = keys[taken - 1];
  if (end === undefined) return null;
  return {
    end: { at: end.at, eventId: end.eventId },
    last: taken === keys.length && keys.length < PAGE_ROWS,
  };
}

const COLUMNS = {
  at: atText,
  orgId: events.orgId,
  event_id: events.eventId,
  type: events.type,
  experiment_id: events.experimentId,
  user_id: events.userId,
  timestamp: events.occurredAt,
  variant: events.variant,
  latency_ms: events.latencyMs,
  input_tokens: events.inputTokens,
  output_tokens: events.outputTokens,
  cached_input_tokens: events.cachedInputTokens,
  reasoning_tokens: events.reasoningTokens,
  cost_usd: events.costUsd,
  priced_by: events.pricedBy,
  model: events.model,
  error: events.error,
  ...MODEL_TEXT_COLUMNS,
  business_metric: events.businessMetric,
  value: events.value,
  metadata: events.metadata,
  received_at: events.receivedAt,
};

type Row = Awaited<ReturnType<typeof pageRows>>[number];

function pageRows(db: Database, scope: ExportScope, cursor: Cursor | null, end: Cursor) {
  return db
    .select(COLUMNS)
    .from(events)
    .where(and(inScope(scope), after(cursor), upTo(end)))
    .orderBy(...ORDER);
}

/** A model call's fields but its text, which comes through the text reader. */
const MODEL_FIELDS = MODEL_CALL_FIELDS.filter((f) => f !== 'prompt' && f !== 'response');

/**
 * One event as POST /v1/events takes it, plus `received_at` and, for a call the server priced,
 * `priced_by`: the wire's field names in the wire
 * format's order, a field the row holds no value for left out, the experiment by id.
 */
export async function wireEvent(
  row: Row,
  readText: ModelTextReader,
): Promise<Record<string, unknown>> {
  const line: Record<string, unknown> = {
    event_id: row.event_id,
    type: row.type,
    experiment_id: row.experiment_id,
    user_id: row.user_id,
    timestamp: row.timestamp.toISOString(),
  };
  if (row.variant !== null) line.variant = row.variant;
  if (row.type === 'model_call') {
    for (const field of MODEL_FIELDS) if (row[field] !== null) line[field] = row[field];
    const text = await readText({
      orgId: row.orgId,
      eventId: row.event_id,
      prompt: row.prompt,
      response: row.response,
      textKey: row.textKey,
      promptBytes: row.promptBytes,
      responseBytes: row.responseBytes,
      textSha256: row.textSha256,
    });
    if (text.prompt !== null) line.prompt = text.prompt;
    if (text.response !== null) line.response = text.response;
  }
  if (row.type === 'business_event') {
    line.business_metric = row.business_metric;
    line.value = row.value;
  }
  if (row.metadata !== null) line.metadata = row.metadata;
  line.received_at = row.received_at.toISOString();
  // What the server added: the price row of a cost it gave (docs/model-prices.md).
  if (row.priced_by !== null) line.priced_by = row.priced_by;
  return line;
}

/** One shard's events of the scope in the export's order, read a page at a time. */
async function* shardRows(db: Database, scope: ExportScope): AsyncGenerator<Row> {
  let cursor: Cursor | null = null;
  for (;;) {
    const page = await pageEnd(db, scope, cursor);
    if (page === null) return;
    yield* await pageRows(db, scope, cursor, page.end);
    if (page.last) return;
    cursor = page.end;
  }
}

/** The export's order: the stored instant, then the event id's UTF-8 bytes (`collate "C"`). */
function before(a: Row, b: Row): boolean {
  if (a.at !== b.at) return a.at < b.at;
  return Buffer.compare(Buffer.from(a.event_id), Buffer.from(b.event_id)) < 0;
}

/** The export's lines, each ending in "\n", read a page at a time as they are consumed. */
export async function* exportLines(
  shards: EventShards,
  scope: ExportScope,
  readText: ModelTextReader = textInRow,
): AsyncGenerator<string> {
  const rows = mergeInOrder(
    shards.all.map((s) => shardRows(s.db, scope)),
    before,
  );
  // Text in an object store is one read a model call: a few go at once, lines keep their order.
  let batch: Row[] = [];
  const flush = async function* () {
    const lines = await Promise.all(batch.map((row) => wireEvent(row, readText)));
    batch = [];
    for (const line of lines) yield `${JSON.stringify(line)}\n`;
  };
  for await (const row of rows) {
    batch.push(row);
    if (batch.length === READS_AT_ONCE) yield* flush();
  }
  yield* flush();
}
