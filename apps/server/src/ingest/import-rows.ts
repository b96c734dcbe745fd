import { TimeSlice } from '../kernel/time-slice.ts';
import { type AcceptDeps, acceptEvents } from './accept.ts';
import { EventIdClaims } from './event-id-claims.ts';
import type { ParsedImport } from './import/index.ts';
import { refuseIfNothingAccepted } from './refusal.ts';

/**
 * Rows are accepted in slices, each appended to the event log before the next is read. A slice's
 * COPY text is built and written in one go, between two time slices: at 5,000 rows that held
 * the loop long enough to put a neighbour's assign p99 at 64 ms under four imports, at 1,000 it
 * was 35–45 ms on a quiet host. On a loaded one the write of a 1,000-row COPY took ~6 ms of the
 * loop; 250 rows (with 2 ms time slices) cut the p99 by about a quarter, the imports no slower
 * (bench/server/import-fairness.md).
 */
const ACCEPT_SLICE = 250;

/**
 * Accepts the rows of a parsed import slice by slice; bad rows (the parser's and the checks')
 * are reported by line. An import into a month whose allowance is used up is refused whole.
 * `time` hands the event loop back between rows, so a large import never holds it for long.
 */
export async function importRows(
  ctx: AcceptDeps,
  orgId: string,
  parsed: ParsedImport,
  time: TimeSlice = new TimeSlice(),
) {
  const errors = [...parsed.errors];
  // Rows the parser could not read never reach acceptance: refused here, their type unread.
  ctx.metrics.countEvents(null, 'refused', parsed.errors.length);
  let events = 0;
  let beforeWindow = 0;
  let lastOutcome: Awaited<ReturnType<typeof acceptEvents>> | null = null;
  // one set of claimed ids for the whole import: a contradiction across slices is caught too
  const ids = new EventIdClaims();
  for (let i = 0; i < parsed.rows.length; i += ACCEPT_SLICE) {
    const slice = parsed.rows.slice(i, i + ACCEPT_SLICE);
    const outcome = await acceptEvents(
      ctx,
      orgId,
      slice.map((r) => r.event),
      { timestamps: 'history', ids, refOf: (index) => `line ${slice[index]!.line}`, slice: time },
    );
    events += outcome.accepted;
    beforeWindow += outcome.beforeWindow;
    for (const r of outcome.rejected) {
      const row = slice[r.index]!;
      errors.push(
        row.index === undefined
          ? { line: row.line, detail: r.detail }
          : { line: row.line, index: row.index, detail: r.detail },
      );
    }
    lastOutcome = outcome;
  }
  // An import into a month whose allowance was already used up is refused as a whole.
  if (lastOutcome !== null && events === 0 && lastOutcome.overAllowance > 0) {
    refuseIfNothingAccepted(lastOutcome, () => '');
  }
  errors.sort((a, b) => a.line - b.line || (a.index ?? 0) - (b.index ?? 0));
  return { events, errors, before_analysis_window: beforeWindow };
}
