import { bomLength } from './types.ts';

const QUOTE = 0x22;
const COMMA = 0x2c;
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
 * Splits RFC 4180 text into records. A record always ends at an unquoted line break, even one
 * with a syntax problem, so a bad record never shifts the ones after it. Only an unterminated
 * quote runs to the end of the input: nothing after it can be told apart from quoted text.
 *
 * Line breaks are LF or CRLF (a CR at the very end counts too); a lone CR elsewhere is data, and
 * lines are counted by LF so they match what an editor shows for either convention.
 */
export function* csvRecords(text: string): Generator<CsvRecord> {
  const n = text.length;
  let pos = bomLength(text);
  let line = 1;

  const breakLength = (at: number): number => {
    const c = text.charCodeAt(at);
    if (c === LF) return 1;
    if (c === CR && (at + 1 === n || text.charCodeAt(at + 1) === LF)) return at + 1 === n ? 1 : 2;
    return 0;
  };

  /** End of an unquoted run: the next comma, line break or the end of the input. */
  const unquotedEnd = (from: number): number => {
    let at = from;
    while (at < n && text.charCodeAt(at) !== COMMA && breakLength(at) === 0) at++;
    return at;
  };

  while (pos < n) {
    const blank = breakLength(pos);
    if (blank > 0) {
      pos += blank;
      line++;
      continue;
    }
    const start = line;
    const fields: string[] = [];
    let problem: CsvFieldProblem | undefined;
    for (;;) {
      if (text.charCodeAt(pos) === QUOTE) {
        const openLine = line;
        let value = '';
        let from = ++pos;
        let closed = false;
        while (pos < n) {
          const c = text.charCodeAt(pos);
          if (c === QUOTE) {
            value += text.slice(from, pos);
            if (text.charCodeAt(pos + 1) === QUOTE) {
              value += '"';
              pos += 2;
              from = pos;
              continue;
            }
            pos++;
            closed = true;
            break;
          }
          if (c === LF) line++;
          pos++;
        }
        if (!closed) {
          // Overrides an earlier problem: it is the reason every later line is missing.
          problem = {
            field: fields.length,
            problem:
              openLine === start
                ? 'quoted field is never closed'
                : `quoted field opened on line ${openLine} is never closed`,
          };
          fields.push(value + text.slice(from));
          yield { line: start, fields, problem };
          return;
        }
        const end = unquotedEnd(pos);
        if (end > pos) {
          problem ??= { field: fields.length, problem: 'text after the closing quote' };
        }
        pos = end;
        fields.push(value);
      } else {
        const end = unquotedEnd(pos);
        const value = text.slice(pos, end);
        if (value.includes('"')) {
          problem ??= { field: fields.length, problem: 'quote inside an unquoted field' };
        }
        pos = end;
        fields.push(value);
      }
      if (pos < n && text.charCodeAt(pos) === COMMA) {
        pos++;
        continue;
      }
      break;
    }
    const ending = breakLength(pos);
    if (ending > 0) {
      pos += ending;
      line++;
    }
    yield { line: start, fields, problem };
  }
}
