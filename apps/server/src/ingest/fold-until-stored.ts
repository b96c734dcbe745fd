import { setTimeout as sleep } from 'node:timers/promises';
import type { AcknowledgedMark, EventLog, FoldOptions, FoldResult } from './event-log.ts';

const POLL_MS = 50;

/**
 * For a log whose events reach the fold through a queue (Kafka): folds, when no other fold is
 * running, until every event the log had acknowledged at the call is stored, so that the fold
 * position (which reads only stored events) covers them. True when they are, false once
 * `deadline` (a `performance.now()` instant) passes first. A log that stores on acknowledgement
 * has nothing to wait for. A mark the log cannot take (its brokers out of reach) is tried again
 * until the deadline: the caller then answers that the fold is behind, which it may be.
 */
export async function foldUntilStored(
  log: Pick<EventLog, 'markAcknowledged'>,
  worker: { foldOnce(options: FoldOptions): Promise<FoldResult> },
  deadline: number,
): Promise<boolean> {
  if (log.markAcknowledged === undefined) return true;
  let mark: AcknowledgedMark | null = null;
  while (performance.now() < deadline) {
    mark ??= await log.markAcknowledged().catch(() => null);
    if (mark !== null && (await mark.stored())) return true;
    const folded = mark === null ? null : await worker.foldOnce({ ifFree: true });
    if (folded === null || folded.busy || folded.events === 0) await sleep(POLL_MS);
  }
  return false;
}
