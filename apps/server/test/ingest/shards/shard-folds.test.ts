import { describe, expect, it } from 'vitest';
import type { FoldResult } from '../../../src/ingest/event-log.ts';
import { mergedFolds } from '../../../src/ingest/shards/shard-folds.ts';

// The shards' folds as one: the worker reads `more` to fold again at once, so one shard's
// backlog must not wait for the others' gathering.

const done = (value: FoldResult): PromiseSettledResult<FoldResult> => ({
  status: 'fulfilled',
  value,
});

describe('the shards’ folds merged', () => {
  it('may have more behind them when any shard’s fold took its whole span', () => {
    const merged = mergedFolds([
      done({ events: 3, quarantined: [], more: false }),
      done({ events: 500, quarantined: [], more: true }),
    ]);
    expect(merged).toEqual({ events: 503, quarantined: [], more: true });
  });

  it('has nothing behind them when no shard’s fold took its whole span', () => {
    const merged = mergedFolds([
      done({ events: 3, quarantined: [], more: false }),
      done({ events: 0, quarantined: [] }),
    ]);
    expect(merged.more).toBeUndefined();
    expect(merged.events).toBe(3);
  });

  it('counts a failed shard as nothing moved, and throws only when no shard moved', () => {
    const failed: PromiseSettledResult<FoldResult> = {
      status: 'rejected',
      reason: new Error('down'),
    };
    expect(mergedFolds([failed, done({ events: 2, quarantined: [], more: true })])).toMatchObject({
      events: 2,
      more: true,
    });
    expect(() => mergedFolds([failed, done({ events: 0, quarantined: [] })])).toThrow('down');
  });
});
