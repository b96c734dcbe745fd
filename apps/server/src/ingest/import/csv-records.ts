import { pipeline } from 'node:stream/promises';
import { CsvError, type InfoField, type InfoRecord, Parser } from 'csv-parse';
import { TimeSlice } from '../../kernel/time-slice.ts';
import { bomLength } from './types.ts';

/**
 * The parser is fed this many bytes at a time, so a time slice is checked often enough: 8 KiB
 * of CSV take a few milliseconds to parse and check.
 */
export const CSV_CHUNK_BYTES = 8 * 1024;

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

  constructor(readonly bytes: Buffer) {}

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
 * Builds records from csv-parse's callbacks, checking each field against its raw bytes. Byte
 * offsets: where the last record ended (after its line break) and the last field ended.
 */
class RecordCollector {
  readonly records: CsvRecord[] = [];
  #lines: LineCounter;
  #recordEnd = 0;
  #recordStart = 0;
  #fieldEnd = 0;
  #fields: string[] = [];
  #problem: CsvFieldProblem | undefined;

  constructor(readonly bytes: Buffer) {
    this.#lines = new LineCounter(bytes);
  }

  #fieldStart(index: number): number {
    if (index > 0) return this.#fieldEnd + 1;
    this.#recordStart = pastBlankLines(this.bytes, this.#recordEnd);
    return this.#recordStart;
  }

  /** csv-parse's `cast`: the value stays text, only its shape is checked. */
  field = (value: string, context: InfoField): string => {
    const index = this.#fields.length;
    const start = this.#fieldStart(index);
    this.#fieldEnd = context.bytes;
    if (context.quoting && !quotedAsWritten(this.bytes, start, this.#fieldEnd, value)) {
      this.#problem ??= { field: index, problem: 'text after the closing quote' };
    } else if (!context.quoting && value.includes('"')) {
      this.#problem ??= { field: index, problem: 'quote inside an unquoted field' };
    }
    this.#fields.push(value);
    return value;
  };

  /** csv-parse's `on_record`: kept here, so csv-parse's own result stays empty. */
  record = (_record: unknown, context: InfoRecord): null => {
    this.#push(this.#lines.at(this.#recordStart));
    this.#recordEnd = context.bytes;
    return null;
  };

  /** The field being read when the input ended inside its quotes. */
  unclosedQuote(): void {
    const start = this.#fieldStart(this.#fields.length);
    const line = this.#lines.at(this.#recordStart);
    const openLine = this.#lines.at(start);
    // Overrides an earlier problem: it is the reason every later line is missing.
    this.#problem = {
      field: this.#fields.length,
      problem:
        openLine === line
          ? 'quoted field is never closed'
          : `quoted field opened on line ${openLine} is never closed`,
    };
    this.#push(line);
  }

  #push(line: number): void {
    this.records.push({ line, fields: this.#fields, problem: this.#problem });
    this.#fields = [];
    this.#problem = undefined;
  }
}

/** The payload in chunks, handing the event loop back whenever the time slice is used up. */
async function* chunksOf(bytes: Buffer, size: number, slice: TimeSlice) {
  for (let at = 0; at < bytes.length; at += size) {
    if (slice.due) await slice.pause();
    yield bytes.subarray(at, at + size);
  }
}

/** Nothing comes out of the parser (records are kept by `on_record`); this only lets it end. */
async function discard(source: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of source);
}

/**
 * Splits RFC 4180 text into records with csv-parse. A record always ends at an unquoted line
 * break, even one with a syntax problem, so a bad record never shifts the ones after it: quotes
 * are parsed relaxed (`relax_quotes`) and each field is checked against its raw bytes here.
 * Only an unterminated quote runs to the end of the input: nothing after it can be told apart
 * from quoted text.
 *
 * Line breaks are LF or CRLF (a CR at the very end counts too); a lone CR elsewhere is data.
 * The parser reads the payload a chunk at a time and yields between chunks (`slice`), so a
 * large import never holds the event loop for long; csv-parse carries a record split across
 * chunks, and its byte offsets count from the start of the payload.
 */
export async function csvRecords(
  text: string,
  slice: TimeSlice = new TimeSlice(),
  chunkBytes: number = CSV_CHUNK_BYTES,
): Promise<CsvRecord[]> {
  const body = text.slice(bomLength(text));
  const collector = new RecordCollector(
    Buffer.from(body.endsWith('\r') ? body.slice(0, -1) : body),
  );
  const parser = new Parser({
    bom: false,
    record_delimiter: ['\r\n', '\n'],
    relax_quotes: true,
    relax_column_count: true,
    skip_empty_lines: true,
    cast: collector.field,
    on_record: collector.record,
  });
  try {
    await pipeline(chunksOf(collector.bytes, chunkBytes, slice), parser, discard);
  } catch (err) {
    if (!(err instanceof CsvError) || err.code !== 'CSV_QUOTE_NOT_CLOSED') throw err;
    collector.unclosedQuote();
  }
  return collector.records;
}
