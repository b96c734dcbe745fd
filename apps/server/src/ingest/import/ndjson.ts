import { TimeSlice } from '../../kernel/time-slice.ts';
import { describeJsonValue, isJsonObject, jsonErrorMessage } from './json-object.ts';
import {
  bomLength,
  checkRowCap,
  type ImportRow,
  type ImportRowError,
  type ParsedImport,
} from './types.ts';

// JSON's own whitespace: a line of anything else is a row that failed to parse, not a gap.
const BLANK = /^[\t\n\r ]*$/;

/** The lines of `text` one at a time, without splitting the whole payload at once. */
function* linesOf(text: string): Generator<string> {
  let at = bomLength(text);
  for (;;) {
    const end = text.indexOf('\n', at);
    if (end === -1) {
      yield text.slice(at);
      return;
    }
    yield text.slice(at, end);
    at = end + 1;
  }
}

/**
 * Parses newline-delimited JSON: one event object per line, blank lines skipped. Yields to the
 * event loop between lines whenever `slice` is used up.
 */
export async function parseNdjsonImport(
  text: string,
  slice: TimeSlice = new TimeSlice(),
): Promise<ParsedImport> {
  const rows: ImportRow[] = [];
  const errors: ImportRowError[] = [];
  let count = 0;
  let line = 0;
  for (const source of linesOf(text)) {
    line++;
    if (slice.due) await slice.pause();
    if (BLANK.test(source)) continue;
    checkRowCap(++count);
    let value: unknown;
    try {
      // A CR left by CRLF endings is JSON whitespace, so JSON.parse takes it as it is.
      value = JSON.parse(source);
    } catch (err) {
      errors.push({ line, detail: `not valid JSON: ${jsonErrorMessage(err)}` });
      continue;
    }
    if (isJsonObject(value)) rows.push({ line, event: value });
    else errors.push({ line, detail: `must be a JSON object, found ${describeJsonValue(value)}` });
  }
  return { rows, errors };
}
