import { type ColumnValue, EVENT_COLUMNS } from './event-columns.ts';
import type { AcceptedEvent } from './event-schema.ts';

const SPECIAL = /[\\\n\r\t]/;
const SPECIALS = /[\\\n\r\t]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

// Most columns are text with nothing to escape: a test finds that at less than a replace's cost.
function escaped(text: string): string {
  return SPECIAL.test(text) ? text.replace(SPECIALS, (c) => ESCAPES[c] as string) : text;
}

function field(value: ColumnValue): string {
  if (typeof value === 'string') return escaped(value);
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 't' : 'f';
  return escaped(JSON.stringify(value));
}

/**
 * Events as the rows of PostgreSQL's COPY text format (tab-separated, `\N` for null, backslash
 * escapes), columns as in EVENT_COLUMN_LIST. Text never holds NUL: validation refuses it.
 */
export function eventsAsCopyText(orgId: string, events: readonly AcceptedEvent[]): string {
  let out = '';
  for (const e of events) {
    out += orgId;
    for (const c of EVENT_COLUMNS) out += `\t${field(c.value(e))}`;
    out += '\n';
  }
  return out;
}
