import { CsvError, type InfoField, type InfoRecord, parse } from 'csv-parse/sync';
import { bomLength } from './types.ts';

const LF = 0x0a;
const CR = 0x0d;

/** A syntax problem in one field; the caller names the field once it knows the header. */
export interface CsvFieldProblem {
  /** 0-based index of the field in its record. */
  field: number;
  problem: string;
}

export interface CsvRecord {
  /** 1-based line the record starts on. */
  line: number;
  fields: string[];
  /** The problem that makes the record unusable; its fields are then only a best effort. */
  problem: CsvFieldProblem | undefined;
}

/**
 * Turns byte offsets into 1-based line numbers, counted by LF so they match what an editor
 * shows for either line-break convention. Offsets are asked for in increasing order.
 */
class LineCounter {
  #offset = 0;
  #line = 1;

  constructor(private readonly bytes: Buffer) {}

  at(offset: number): number {
    for (let at = this.bytes.indexOf(LF, this.#offset); at !== -1 && at < offset; ) {
      this.#line++;
      at = this.bytes.indexOf(LF, at + 1);
    }
    this.#offset = Math.max(this.#offset, offset);
    return this.#line;
  }
}

/** Where the next record starts: past the blank lines that csv-parse skips (`skip_empty_lines`). */
function pastBlankLines(bytes: Buffer, from: number): number {
  let at = from;
  for (;;) {
    if (bytes[at] === LF) at += 1;
    else if (bytes[at] === CR && bytes[at + 1] === LF) at += 2;
    else return at;
  }
}

/** A quoted field is well formed when its text is exactly the value quoted again. */
function quotedAsWritten(bytes: Buffer, start: number, end: number, value: string): boolean {
  return bytes.subarray(start, end).toString() === `"${value.replaceAll('"', '""')}"`;
}

/**
 * Splits RFC 4180 text into records with csv-parse. A record always ends at an unquoted line
 * break, even one with a syntax problem, so a bad record never shifts the ones after it: quotes
 * are parsed relaxed (`relax_quotes`) and each field is checked against its raw bytes here.
 * Only an unterminated quote runs to the end of the input: nothing after it can be told apart
 * from quoted text.
 *
 * Line breaks are LF or CRLF (a CR at the very end counts too); a lone CR elsewhere is data.
 */
export function csvRecords(text: string): CsvRecord[] {
  const body = text.slice(bomLength(text));
  const bytes = Buffer.from(body.endsWith('\r') ? body.slice(0, -1) : body);
  const lines = new LineCounter(bytes);
  const records: CsvRecord[] = [];
  // Byte offsets: where the last record ended (after its line break) and the last field ended.
  let recordEnd = 0;
  let fieldEnd = 0;
  let recordStart = 0;
  let fields: string[] = [];
  let problem: CsvFieldProblem | undefined;

  const fieldStart = (index: number): number => {
    if (index > 0) return fieldEnd + 1;
    recordStart = pastBlankLines(bytes, recordEnd);
    return recordStart;
  };

  const onField = (value: string, context: InfoField): string => {
    const index = fields.length;
    const start = fieldStart(index);
    fieldEnd = context.bytes;
    if (context.quoting && !quotedAsWritten(bytes, start, fieldEnd, value)) {
      problem ??= { field: index, problem: 'text after the closing quote' };
    } else if (!context.quoting && value.includes('"')) {
      problem ??= { field: index, problem: 'quote inside an unquoted field' };
    }
    fields.push(value);
    return value;
  };

  const onRecord = (_record: unknown, context: InfoRecord): null => {
    records.push({ line: lines.at(recordStart), fields, problem });
    recordEnd = context.bytes;
    fields = [];
    problem = undefined;
    return null;
  };

  try {
    parse(bytes, {
      bom: false,
      record_delimiter: ['\r\n', '\n'],
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: true,
      cast: onField,
      on_record: onRecord,
    });
  } catch (err) {
    if (!(err instanceof CsvError) || err.code !== 'CSV_QUOTE_NOT_CLOSED') throw err;
    const start = fieldStart(fields.length);
    const line = lines.at(recordStart);
    const openLine = lines.at(start);
    // Overrides an earlier problem: it is the reason every later line is missing.
    problem = {
      field: fields.length,
      problem:
        openLine === line
          ? 'quoted field is never closed'
          : `quoted field opened on line ${openLine} is never closed`,
    };
    records.push({ line, fields, problem });
  }
  return records;
}
