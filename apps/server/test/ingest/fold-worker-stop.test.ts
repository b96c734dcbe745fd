import { describe, expect, it, vi } from 'vitest';
import type { EventLog } from '../../src/ingest/event-log.ts';
import { FoldWorker } from '../../src/ingest/fold-worker.ts';

// A process that is shutting down finishes the stretch it is folding and takes no other, however
// long the backlog: what is left stays in the log for the next fold, in this process or another.

describe('stopping the fold worker', () => {
  it('ends after the stretch in progress, with a backlog that never runs out', async () => {
    let folds = 0;
    let inStretch = false;
    let endStretch: () => void = () => {};
    const log: EventLog = {
      append: async () => ({ appended: [], duplicates: [], conflicts: [], refused: [] }),
      fold: async () => {
        folds++;
        inStretch = true;
        await new Promise<void>((resolve) => {
          endStretch = resolve;
          setTimeout(resolve, 1);
        });
        inStretch = false;
        return { events: 500, quarantined: [] };
      },
      depth: async () => Number.POSITIVE_INFINITY,
      onAppend: () => {},
    };
    const worker = new FoldWorker(log);
    worker.start();
    await vi.waitFor(() => expect(folds).toBeGreaterThan(2));
    const stopped = worker.stop();
    endStretch();
    await stopped;
    const atStop = folds;
    expect(inStretch).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(folds).toBe(atStop);
  });
});
