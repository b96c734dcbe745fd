import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EventLog } from '../../src/ingest/event-log.ts';
import { FoldWorker } from '../../src/ingest/fold-worker.ts';

// The worker folds at most once per `gatherMs` while each fold takes everything there is and
// this process's appends keep coming, so that one fold takes many acceptances. A pause of its
// appends (50 ms) ends the gathering; a fold that takes its whole span leaves a backlog, folded
// without waits; a stop cuts a wait short.

/**
 * A log of acceptances only: `append` queues one and wakes the worker, a fold takes up to its
 * span and lasts `foldMs`, during which appends go on.
 */
class QueueLog {
  pending = 0;
  readonly folds: number[] = [];
  private listener: () => void = () => {};

  constructor(private readonly foldMs = 0) {}

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
      if (taken > 0 && this.foldMs > 0) await new Promise((r) => setTimeout(r, this.foldMs));
      return { events: taken * 100, quarantined: [], more: taken === maxTransactions };
    },
    depth: async () => this.pending * 100,
    onAppend: (listener: () => void) => {
      this.listener = listener;
    },
  };
}

/** A worker over `q`, started and idle (its first look found nothing). */
async function started(q: QueueLog, gatherMs: number): Promise<FoldWorker> {
  const worker = new FoldWorker(q.log, null, () => true, undefined, gatherMs);
  worker.start();
  await vi.advanceTimersByTimeAsync(0);
  return worker;
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
    const worker = await started(q, 1000);
    q.append();
    await vi.advanceTimersByTimeAsync(0);
    expect(q.folds).toEqual([1]); // the first append after a quiet spell is folded at once
    for (let i = 0; i < 50; i++) {
      q.append();
      await vi.advanceTimersByTimeAsync(10);
    }
    expect(q.folds).toEqual([1]); // appends do not wake a gathering worker
    expect(q.pending).toBe(50);
    await vi.advanceTimersByTimeAsync(100);
    expect(q.folds).toEqual([1, 50]);
    expect(q.pending).toBe(0);
    await worker.stop();
  });

  it('folds once a gathering under steady load, though events arrive while it folds', async () => {
    const q = new QueueLog(200);
    const worker = await started(q, 1000);
    for (let i = 0; i < 500; i++) {
      q.append();
      await vi.advanceTimersByTimeAsync(10);
    }
    // 5 s of an append every 10 ms: the first alone, then one fold a second
    expect(q.folds.length).toBeLessThanOrEqual(6);
    expect(q.folds.slice(1).every((n) => n >= 80)).toBe(true);
    await worker.stop();
  });

  it('ends a gathering once this process has appended and then paused', async () => {
    const q = new QueueLog();
    const worker = await started(q, 1000);
    q.append();
    await vi.advanceTimersByTimeAsync(0);
    for (let i = 0; i < 5; i++) {
      q.append();
      await vi.advanceTimersByTimeAsync(10);
    }
    expect(q.folds).toEqual([1]);
    // the burst is over: folded 50 to 100 ms after its last append, not at the second's end
    await vi.advanceTimersByTimeAsync(40);
    expect(q.folds).toEqual([1]);
    await vi.advanceTimersByTimeAsync(60);
    expect(q.folds).toEqual([1, 5]);
    await worker.stop();
  });

  it('ends a gathering on a pause only after an append of this process', async () => {
    const q = new QueueLog();
    const worker = await started(q, 1000);
    q.append();
    await vi.advanceTimersByTimeAsync(0);
    q.pending += 3; // another process's acceptances: they do not wake this worker
    await vi.advanceTimersByTimeAsync(500);
    expect(q.folds).toEqual([1]);
    await vi.advanceTimersByTimeAsync(500);
    expect(q.folds).toEqual([1, 3]);
    await worker.stop();
  });

  it('folds on each append when gatherMs is 0', async () => {
    const q = new QueueLog();
    const worker = await started(q, 0);
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
    const worker = await started(q, 1000);
    expect(q.folds).toEqual([500, 500, 200]);
    await worker.stop();
  });

  it('stops during a gathering wait without waiting it out', async () => {
    const q = new QueueLog();
    const worker = await started(q, 60_000);
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
