import type { FoldResult } from '../event-log.ts';

/**
 * The folds of every shard, settled, as one result. A shard whose fold failed does not hold the
 * others back; the failure is thrown only when no shard moved anything (so the worker's failure
 * log sees a fold that is stuck, not one shard's outage while the rest go on). Busy only when
 * every shard was; more may wait when any shard's fold took its whole span.
 */
export function mergedFolds(settled: readonly PromiseSettledResult<FoldResult>[]): FoldResult {
  const done = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason] : []));
  if (failed.length > 0 && done.every((r) => r.events === 0 && r.quarantined.length === 0))
    throw failed[0];
  return {
    events: done.reduce((n, r) => n + r.events, 0),
    quarantined: done.flatMap((r) => r.quarantined),
    ...(done.length > 0 && done.every((r) => r.busy) ? { busy: true } : {}),
    ...(done.some((r) => r.more) ? { more: true } : {}),
  };
}
