import { TimeSlice } from '../../kernel/time-slice.ts';
import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COMMA,
  CR,
  LF,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
  SPACE,
  TAB,
} from './json-bytes.ts';
import { describeJsonValue, isJsonObject, jsonErrorMessage } from './json-object.ts';
import {
  bomLength,
  checkRowCap,
  ImportFormatError,
  type ImportRow,
  type ImportRowError,
  type ParsedImport,
} from './types.ts';

interface Opener {
  code: number;
  line: number;
}

/**
 * Walks the top-level array only as far as needed to find where each element starts and ends:
 * bracket depth, strings with escapes, and line breaks. Whether an element is valid JSON is left
 * to JSON.parse, element by element, so one bad element does not sink the others.
 */
export class ArrayCursor {
  pos: number;
  line = 1;
  private readonly text: string;

  constructor(text: string) {
    this.text = text;
    this.pos = bomLength(text);
  }

  get done(): boolean {
    return this.pos >= this.text.length;
  }

  peek(): number {
    return this.text.charCodeAt(this.pos);
  }

  skipWhitespace(): void {
    while (!this.done) {
      const c = this.peek();
      if (c === LF) this.line++;
      else if (c !== SPACE && c !== TAB && c !== CR) return;
      this.pos++;
    }
  }

  skipString(): void {
    const openLine = this.line;
    this.pos++;
    while (!this.done) {
      const c = this.peek();
      if (c === QUOTE) {
        this.pos++;
        return;
      }
      // An escaped character is never a closing quote; a raw line break is invalid JSON that
      // JSON.parse will report, but it still moves the line count.
      if (c === BACKSLASH) this.pos++;
      if (this.peek() === LF) this.line++;
      this.pos++;
    }
    throw new ImportFormatError('string is never closed', openLine);
  }

  /**
   * Moves to the `,` or the unmatched `closer` (`]` of an array, `}` of an object's member)
   * that ends the current element.
   */
  skipElement(arrayLine: number, closer: number = CLOSE_BRACKET): void {
    const open: Opener[] = [];
    while (!this.done) {
      const c = this.peek();
      if (c === QUOTE) {
        this.skipString();
        continue;
      }
      if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        open.push({ code: c, line: this.line });
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        const opener = open.pop();
        if (opener === undefined) {
          if (c === closer) return;
          throw new ImportFormatError("'}' without a matching '{'", this.line);
        }
        if (opener.code !== (c === CLOSE_BRACE ? OPEN_BRACE : OPEN_BRACKET)) {
          throw new ImportFormatError(
            `'${String.fromCharCode(c)}' does not close the '${String.fromCharCode(opener.code)}' opened on line ${opener.line}`,
            this.line,
          );
        }
      } else if (c === COMMA && open.length === 0) {
        return;
      } else if (c === LF) {
        this.line++;
      }
      this.pos++;
    }
    const outer = open[0];
    if (outer === undefined) throw new ImportFormatError('the array is never closed', arrayLine);
    throw new ImportFormatError(`'${String.fromCharCode(outer.code)}' is never closed`, outer.line);
  }
}

function parseElement(source: string, line: number, index: number): ImportRow | ImportRowError {
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (err) {
    return { line, index, detail: `not valid JSON: ${jsonErrorMessage(err)}` };
  }
  if (!isJsonObject(value)) {
    return { line, index, detail: `must be a JSON object, found ${describeJsonValue(value)}` };
  }
  return { line, index, event: value };
}

/**
 * Parses a JSON array of event objects; each element's line is where the element starts.
 * Yields to the event loop between elements whenever `slice` is used up.
 */
export async function parseJsonArrayImport(
  text: string,
  slice: TimeSlice = new TimeSlice(),
): Promise<ParsedImport> {
  const cursor = new ArrayCursor(text);
  cursor.skipWhitespace();
  if (cursor.done) throw new ImportFormatError('empty payload: expected a JSON array of events');
  if (cursor.peek() !== OPEN_BRACKET) {
    // The likeliest mistake is the POST /v1/events body shape, so say how to fix it.
    throw new ImportFormatError(
      cursor.peek() === OPEN_BRACE
        ? 'expected a JSON array of events, found an object (send the array itself, not {"events": [...]})'
        : 'expected a JSON array of events',
      cursor.line,
    );
  }
  const parsed = await readElements(cursor, text, slice);
  cursor.skipWhitespace();
  if (!cursor.done) throw new ImportFormatError('unexpected text after the closing ]', cursor.line);
  return parsed;
}

/**
 * Reads the array the cursor stands on (at its `[`) element by element, leaving the cursor past
 * its `]`. Each element's line is where it starts; its index is its 0-based position.
 */
export async function readElements(
  cursor: ArrayCursor,
  text: string,
  slice: TimeSlice,
): Promise<ParsedImport> {
  const arrayLine = cursor.line;
  cursor.pos++;
  const rows: ImportRow[] = [];
  const errors: ImportRowError[] = [];
  cursor.skipWhitespace();
  if (cursor.peek() === CLOSE_BRACKET) {
    cursor.pos++;
    return { rows, errors };
  }
  for (let count = 0; ; ) {
    if (slice.due) await slice.pause();
    cursor.skipWhitespace();
    const start = cursor.pos;
    const line = cursor.line;
    cursor.skipElement(arrayLine);
    const index = count;
    checkRowCap(++count);
    const end = cursor.peek();
    if (cursor.pos === start) {
      errors.push({
        line,
        index,
        detail: end === CLOSE_BRACKET ? 'trailing comma before ]' : 'missing element before ,',
      });
    } else {
      const parsed = parseElement(text.slice(start, cursor.pos), line, index);
      if ('event' in parsed) rows.push(parsed);
      else errors.push(parsed);
    }
    cursor.pos++;
    if (end === CLOSE_BRACKET) return { rows, errors };
  }
}
