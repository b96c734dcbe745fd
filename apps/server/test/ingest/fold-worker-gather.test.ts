import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EventLog } from '../../src/ingest/event-log.ts';
import { FoldWorker } from '../../src/ingest/fold-worker.ts';

// Once the worker has folded everything, it lets events gather for `gatherMs` before it folds
// again (appends do not wake it then), so that one fold takes many acceptances. A backlog is
// folded without waits, and a stop cuts a wait short.

/** A log of acceptances only: `append` queues one and wakes the worker, a fold takes up to its span. */
class QueueLog {
  pending = 0;
  readonly folds: number[] = [];
  private listener: () => void = () => {};

  append(): void {
    this.pending++;
    this.listener();
  }

  readonly log: EventLog = {
    append: async () => ({ appended: [], duplicates: [], conflicts: [], refused: [] }),
    fold: async (maxTransactions: number) => {
      const taken = Math.min(this.pending, maxTransactions);
      this.pending -= taken;
      if (taken > 0) this.folds.push(taken);
      return { events: taken * 100, quarantined: [] };
    },
    depth: async () => this.pending * 100,
    onAppend: (listener: () => void) => {
      this.listener = listener;
    },
  };
}

describe('the fold worker lets events gather', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('folds the acceptances of a gathering wait in one fold, not one fold an append', async () => {
    const q = new QueueLog();
    const worker = new FoldWorker(q.log, null, () => true, undefined, 1000);
    worker.start();
    await vi.advanceTimersByTimeAsync(0);
    q.append();
    await vi.advanceTimersByTimeAsync(0);
    expect(q.folds).toEqual([1]); // the first append after a quiet spell is folded at once
    for (let i = 0; i < 5; i++) {
      q.append();
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(q.folds).toEqual([1]); // appends do not wake a gathering worker
    expect(q.pending).toBe(5);
    await vi.advanceTimersByTimeAsync(500);
    expect(q.folds).toEqual([1, 5]);
    expect(q.pending).toBe(0);
    await worker.stop();
  });

  it('folds on each append when gatherMs is 0', async () => {
    const q = new QueueLog();
    const worker = new FoldWorker(q.log, null, () => true, undefined, 0);
    worker.start();
    await vi.advanceTimersByTimeAsync(0);
    for (let i = 0; i < 3; i++) {
      q.append();
      await vi.advanceTimersByTimeAsync(0);
    }
    expect(q.folds).toEqual([1, 1, 1]);
    await worker.stop();
  });

  it('folds a backlog fold after fold, without waiting in between', async () => {
    const q = new QueueLog();
    q.pending = 1200; // more than two folds' span (500 acceptances)
    const worker = new FoldWorker(q.log, null, () => true, undefined, 1000);
    worker.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(q.folds).toEqual([500, 500, 200]);
    await worker.stop();
  });

  it('stops during a gathering wait without waiting it out', async () => {
    const q = new QueueLog();
    const worker = new FoldWorker(q.log, null, () => true, undefined, 60_000);
    worker.start();
    q.append();
    await vi.advanceTimersByTimeAsync(0);
    expect(q.folds).toEqual([1]);
    let stopped = false;
    const stopping = worker.stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(true);
    await stopping;
  });
});
