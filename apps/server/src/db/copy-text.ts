const SPECIAL = /[\\\n\r\t]/;
const SPECIALS = /[\\\n\r\t]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** What a COPY field may be given: text, a number, a flag, null, or JSON. */
export type CopyValue = string | number | boolean | null | undefined | object;

// Most fields are text with nothing to escape: a test finds that at less than a replace's cost.
function escaped(text: string): string {
  return SPECIAL.test(text) ? text.replace(SPECIALS, (c) => ESCAPES[c] as string) : text;
}

/**
 * One field in PostgreSQL's COPY text format: `\N` for null, backslash escapes for the
 * backslash, newline, carriage return and tab, `t`/`f` for a flag, JSON for an object. The
 * one encoder every COPY of the server writes with; text never holds NUL (validation refuses it).
 */
export function copyField(value: CopyValue): string {
  if (typeof value === 'string') return escaped(value);
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 't' : 'f';
  return escaped(JSON.stringify(value));
}

/** Fields as one line of COPY text: tab-separated, ended by a newline. */
export function copyLine(fields: readonly CopyValue[]): string {
  return `${fields.map(copyField).join('\t')}\n`;
}
