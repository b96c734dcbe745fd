import { pipeline } from 'node:stream/promises';
import { CsvError, type InfoField, type InfoRecord, type Options, Parser } from 'csv-parse';
import { parse as parseSync } from 'csv-parse/sync';
import { TimeSlice } from '../../kernel/time-slice.ts';
import { bomLength } from './types.ts';

/**
 * The parser is fed this many bytes at a time, so a time slice is checked often enough: 8 KiB
 * of CSV take a few milliseconds to parse and check.
 */
export const CSV_CHUNK_BYTES = 8 * 1024;

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const COMMA = 0x2c;

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
  #line: number;

  constructor(
    readonly bytes: Buffer,
    firstLine = 1,
  ) {
    this.#line = firstLine;
  }

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

const OPTIONS: Options = {
  bom: false,
  record_delimiter: ['\r\n', '\n'],
  relax_quotes: true,
  relax_column_count: true,
  skip_empty_lines: true,
};

const isUnclosedQuote = (err: unknown) =>
  err instanceof CsvError && err.code === 'CSV_QUOTE_NOT_CLOSED';

/**
 * The record left open at the end of `bytes`, which starts on `line`: read again with a
 * context per field, to say on which line its quote opened.
 */
function unclosedRecord(bytes: Buffer, line: number): CsvRecord {
  const fields: string[] = [];
  let openedAt = 0;
  const cast = (value: string, context: InfoField) => {
    fields.push(value);
    openedAt = context.bytes + 1;
    return value;
  };
  try {
    parseSync(bytes, { ...OPTIONS, cast });
  } catch (err) {
    if (!isUnclosedQuote(err)) throw err;
  }
  const openLine = new LineCounter(bytes, line).at(openedAt);
  // The only problem named: it is the reason every later line is missing.
  const problem =
    openLine === line
      ? 'quoted field is never closed'
      : `quoted field opened on line ${openLine} is never closed`;
  return { line, fields, problem: { field: fields.length, problem } };
}

/**
 * The first field of a record whose raw text is not what csv-parse made of it: a quoted field
 * must be its value quoted again (doubled quotes inside) and end at a delimiter, and an
 * unquoted field may hold no quote. `text` is the record's raw text, `fields` csv-parse's.
 */
function quotingProblem(text: string, fields: readonly string[]): CsvFieldProblem | undefined {
  let at = 0;
  for (const [field, value] of fields.entries()) {
    if (text.charCodeAt(at) === QUOTE) {
      const quoted = `"${value.replaceAll('"', '""')}"`;
      const next = text.charCodeAt(at + quoted.length);
      const delimited = Number.isNaN(next) || next === COMMA || next === LF || next === CR;
      if (!text.startsWith(quoted, at) || !delimited) {
        return { field, problem: 'text after the closing quote' };
      }
      at += quoted.length + 1;
    } else {
      if (value.includes('"')) return { field, problem: 'quote inside an unquoted field' };
      at += value.length + 1;
    }
  }
  return undefined;
}

/**
 * Builds records from csv-parse's `on_record`. A record without a quote character cannot have
 * a quoting problem and is taken as parsed; the raw text of one with a quote is checked field
 * by field. csv-parse's per-field context objects (its `cast` callback) were most of an
 * import's parsing time and garbage, so only the record's end offset is asked of it.
 */
class RecordSplitter {
  readonly records: CsvRecord[] = [];
  #lines: LineCounter;
  #recordEnd = 0;
  #nextQuote: number;

  constructor(readonly bytes: Buffer) {
    this.#lines = new LineCounter(bytes);
    this.#nextQuote = bytes.indexOf(QUOTE);
  }

  /** csv-parse's `on_record`: kept here, so csv-parse's own result stays empty. */
  record = (fields: string[], context: InfoRecord): null => {
    const start = pastBlankLines(this.bytes, this.#recordEnd);
    const end = context.bytes;
    this.#recordEnd = end;
    if (this.#nextQuote !== -1 && this.#nextQuote < start) {
      this.#nextQuote = this.bytes.indexOf(QUOTE, start);
    }
    const quoted = this.#nextQuote !== -1 && this.#nextQuote < end;
    this.records.push({
      line: this.#lines.at(start),
      fields,
      problem: quoted ? quotingProblem(this.bytes.toString('utf8', start, end), fields) : undefined,
    });
    return null;
  };

  /** The input ended inside quotes: the record left open runs to the end and is read alone. */
  unclosedQuote(): void {
    const start = pastBlankLines(this.bytes, this.#recordEnd);
    this.records.push(unclosedRecord(this.bytes.subarray(start), this.#lines.at(start)));
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
  const splitter = new RecordSplitter(Buffer.from(body.endsWith('\r') ? body.slice(0, -1) : body));
  const parser = new Parser({ ...OPTIONS, on_record: splitter.record });
  try {
    await pipeline(chunksOf(splitter.bytes, chunkBytes, slice), parser, discard);
  } catch (err) {
    if (!isUnclosedQuote(err)) throw err;
    splitter.unclosedQuote();
  }
  return splitter.records;
}
