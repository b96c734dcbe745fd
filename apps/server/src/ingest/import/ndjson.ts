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

/** Parses newline-delimited JSON: one event object per line, blank lines skipped. */
export function parseNdjsonImport(text: string): ParsedImport {
  const rows: ImportRow[] = [];
  const errors: ImportRowError[] = [];
  let count = 0;
  for (const [i, source] of text.slice(bomLength(text)).split('\n').entries()) {
    if (BLANK.test(source)) continue;
    checkRowCap(++count);
    const line = i + 1;
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
