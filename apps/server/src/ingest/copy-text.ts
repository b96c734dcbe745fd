import { type ColumnValue, EVENT_COLUMNS } from './event-columns.ts';
import type { AcceptedEvent } from './event-schema.ts';

const SPECIAL = /[\\\n\r\t]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function field(value: ColumnValue): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (typeof value === 'number') return String(value);
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.replace(SPECIAL, (c) => ESCAPES[c] as string);
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
