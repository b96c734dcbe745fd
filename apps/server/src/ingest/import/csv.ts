import { NUMERIC_DOMAINS } from '@arbiter/contract';
import { TimeSlice } from '../../kernel/time-slice.ts';
import { EventSchema, type IncomingEvent } from '../event-schema.ts';
import { readHeaderNames } from './csv-header.ts';
import { type CsvRecord, csvRecords } from './csv-records.ts';
import { describeJsonValue, isJsonObject, jsonErrorMessage } from './json-object.ts';
import {
  checkRowCap,
  ImportFormatError,
  type ImportRow,
  type ImportRowError,
  type ParsedImport,
} from './types.ts';

/** The Event fields a CSV header may name (docs/wire-format.md): any subset, in any order. */
export const CSV_COLUMNS = Object.keys(EventSchema.properties) as (keyof IncomingEvent)[];

export type CsvColumn = (typeof CSV_COLUMNS)[number];

const KNOWN = new Set<string>(CSV_COLUMNS);
/** The numeric event fields: each has a domain in the contract. */
const NUMERIC_COLUMNS: ReadonlySet<string> = new Set(Object.keys(NUMERIC_DOMAINS));
// Plain decimal notation only: Number() would also take "0x1f", "Infinity" and "1_000"-like
// typos that a spreadsheet never writes on purpose.
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** Quotes a cell for an error detail without echoing a whole misplaced prompt back. */
function snippet(cell: string): string {
  return JSON.stringify(cell.length > 40 ? `${cell.slice(0, 40)}…` : cell);
}

function readHeader(record: CsvRecord): CsvColumn[] {
  return readHeaderNames(record, (name) => KNOWN.has(name), CSV_COLUMNS.join(', ')) as CsvColumn[];
}

/** The reason a record cannot become an event at all, before its cells are looked at. */
function recordProblem(record: CsvRecord, header: readonly CsvColumn[]): string | undefined {
  if (record.problem) {
    const { field, problem } = record.problem;
    return `${header[field] ?? `field ${field + 1}`}: ${problem}`;
  }
  if (record.fields.length !== header.length) {
    return `expected ${plural(header.length, 'field')}, found ${record.fields.length}`;
  }
  return undefined;
}

function convertCell(column: CsvColumn, cell: string): { value: unknown } | { problem: string } {
  if (NUMERIC_COLUMNS.has(column)) {
    const trimmed = cell.trim();
    const value = DECIMAL.test(trimmed) ? Number(trimmed) : Number.NaN;
    if (!Number.isFinite(value)) return { problem: `${column}: not a number: ${snippet(cell)}` };
    return { value };
  }
  if (column === 'metadata') {
    let value: unknown;
    try {
      value = JSON.parse(cell);
    } catch (err) {
      return { problem: `metadata: not valid JSON (${jsonErrorMessage(err)})` };
    }
    if (!isJsonObject(value)) {
      return { problem: `metadata: must be a JSON object, found ${describeJsonValue(value)}` };
    }
    return { value };
  }
  return { value: cell };
}

/**
 * Parses an RFC 4180 CSV import. Empty cells leave the field out; numeric columns become
 * numbers and `metadata` a parsed object. Every bad cell of a row is named in one error.
 * Yields to the event loop whenever `slice` is used up.
 */
export async function parseCsvImport(
  text: string,
  slice: TimeSlice = new TimeSlice(),
): Promise<ParsedImport> {
  const [first, ...records] = await csvRecords(text, slice);
  if (first === undefined) {
    throw new ImportFormatError(
      `no header row: the first line must name the columns (${CSV_COLUMNS.join(', ')})`,
    );
  }
  const header = readHeader(first);
  const rows: ImportRow[] = [];
  const errors: ImportRowError[] = [];
  let count = 0;
  for (const record of records) {
    if (slice.due) await slice.pause();
    checkRowCap(++count);
    const broken = recordProblem(record, header);
    if (broken !== undefined) {
      errors.push({ line: record.line, detail: broken });
      continue;
    }
    const event: Record<string, unknown> = {};
    const problems: string[] = [];
    for (const [i, column] of header.entries()) {
      const cell = record.fields[i] ?? '';
      if (cell === '') continue;
      const converted = convertCell(column, cell);
      if ('problem' in converted) problems.push(converted.problem);
      else event[column] = converted.value;
    }
    if (problems.length > 0) errors.push({ line: record.line, detail: problems.join('; ') });
    else rows.push({ line: record.line, event });
  }
  return { rows, errors };
}
