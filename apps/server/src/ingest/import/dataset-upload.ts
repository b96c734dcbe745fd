import { TimeSlice } from '../../kernel/time-slice.ts';
import { readHeaderNames } from './csv-header.ts';
import { type CsvRecord, csvRecords } from './csv-records.ts';
import { ArrayCursor, readElements } from './json-array.ts';
import { parseNdjsonImport } from './ndjson.ts';
import { checkRowCap, ImportFormatError, type ImportRowError } from './types.ts';

/**
 * The formats of a dataset upload, read by the events import's own readers (the CSV record
 * splitter, the NDJSON lines, the JSON array walker) into rows of item fields, each with the
 * 1-based line it starts on as submitted. The fields are checked as items by the domain.
 */
export interface DatasetUploadRow {
  line: number;
  index?: number;
  fields: Record<string, unknown>;
}

export interface ParsedDatasetUpload {
  rows: DatasetUploadRow[];
  errors: ImportRowError[];
}

/** The CSV columns of an item; then `var.<name>` for variables and `meta.<name>` for metadata. */
export const DATASET_CSV_COLUMNS = ['id', 'input', 'expected_output', 'group'] as const;
const KNOWN = new Set<string>(DATASET_CSV_COLUMNS);
const PREFIXES = { 'var.': 'variables', 'meta.': 'metadata' } as const;

type Column =
  | { field: (typeof DATASET_CSV_COLUMNS)[number] }
  | { field: 'variables' | 'metadata'; key: string };

function columnOf(name: string): Column | undefined {
  if (KNOWN.has(name)) return { field: name as (typeof DATASET_CSV_COLUMNS)[number] };
  for (const [prefix, field] of Object.entries(PREFIXES)) {
    if (name.startsWith(prefix) && name.length > prefix.length)
      return { field, key: name.slice(prefix.length) };
  }
  return undefined;
}

function readHeader(record: CsvRecord): Column[] {
  const names = readHeaderNames(
    record,
    (name) => columnOf(name) !== undefined,
    `${DATASET_CSV_COLUMNS.join(', ')}, var.<name>, meta.<name>`,
  );
  return names.map((name) => columnOf(name) as Column);
}

function headerName(column: Column | undefined, field: number): string {
  if (column === undefined) return `field ${field + 1}`;
  if ('key' in column) return `${column.field === 'variables' ? 'var' : 'meta'}.${column.key}`;
  return column.field;
}

/** The item fields of one record; an empty cell leaves its field (or variable) out. */
function fieldsOf(record: CsvRecord, header: readonly Column[]): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [i, column] of header.entries()) {
    const cell = record.fields[i] ?? '';
    if (cell === '') continue;
    if ('key' in column) {
      const inner = (fields[column.field] ?? {}) as Record<string, unknown>;
      inner[column.key] = cell;
      fields[column.field] = inner;
    } else {
      fields[column.field] = cell;
    }
  }
  return fields;
}

/** RFC 4180 CSV: a header row naming the columns, then one item per record. */
export async function parseDatasetCsv(
  text: string,
  slice: TimeSlice = new TimeSlice(),
): Promise<ParsedDatasetUpload> {
  const [first, ...records] = await csvRecords(text, slice);
  if (first === undefined) {
    throw new ImportFormatError(
      `no header row: the first line must name the columns (${DATASET_CSV_COLUMNS.join(', ')}, var.<name>, meta.<name>)`,
    );
  }
  const header = readHeader(first);
  const rows: DatasetUploadRow[] = [];
  const errors: ImportRowError[] = [];
  let count = 0;
  for (const record of records) {
    if (slice.due) await slice.pause();
    checkRowCap(++count);
    if (record.problem) {
      const { field, problem } = record.problem;
      errors.push({ line: record.line, detail: `${headerName(header[field], field)}: ${problem}` });
    } else if (record.fields.length !== header.length) {
      errors.push({
        line: record.line,
        detail: `expected ${header.length} fields, found ${record.fields.length}`,
      });
    } else {
      rows.push({ line: record.line, fields: fieldsOf(record, header) });
    }
  }
  return { rows, errors };
}

/** NDJSON: one item object per line, blank lines skipped. */
export async function parseDatasetNdjson(
  text: string,
  slice: TimeSlice = new TimeSlice(),
): Promise<ParsedDatasetUpload> {
  const parsed = await parseNdjsonImport(text, slice);
  return {
    rows: parsed.rows.map((r) => ({ line: r.line, fields: r.event })),
    errors: parsed.errors,
  };
}

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const COMMA = 0x2c;

/**
 * JSON `{"items": [...]}`, already known to be valid JSON of that shape (the route checks it
 * whole, with pointers): walks the text for the line each element of `items` starts on, and
 * reads the elements one by one, so a bad item is a row error that sinks no other.
 */
export async function parseDatasetJson(
  text: string,
  slice: TimeSlice = new TimeSlice(),
): Promise<ParsedDatasetUpload> {
  const cursor = new ArrayCursor(text);
  cursor.skipWhitespace();
  if (cursor.peek() !== OPEN_BRACE) throw new ImportFormatError('expected {"items": [...]}');
  cursor.pos++;
  let parsed: ParsedDatasetUpload = { rows: [], errors: [] };
  for (;;) {
    cursor.skipWhitespace();
    if (cursor.peek() === CLOSE_BRACE) break;
    const keyStart = cursor.pos;
    cursor.skipString();
    const key = JSON.parse(text.slice(keyStart, cursor.pos)) as string;
    cursor.skipWhitespace();
    cursor.pos++; // the ':'
    cursor.skipWhitespace();
    if (key === 'items' && cursor.peek() === OPEN_BRACKET) {
      const elements = await readElements(cursor, text, slice);
      parsed = {
        rows: elements.rows.map((r) => ({ line: r.line, index: r.index ?? 0, fields: r.event })),
        errors: elements.errors,
      };
    } else {
      cursor.skipElement(cursor.line, CLOSE_BRACE);
    }
    cursor.skipWhitespace();
    if (cursor.peek() !== COMMA) break;
    cursor.pos++;
  }
  return parsed;
}
