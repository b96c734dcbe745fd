import { describe, expect, it } from 'vitest';
import { mapConcurrent } from '../../src/kernel/map-concurrent.ts';

describe('mapConcurrent', () => {
  it('keeps the items’ order and never has more than the limit in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const out = await mapConcurrent([5, 1, 4, 2, 3, 0], 2, async (n) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, n));
      inFlight--;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30, 0]);
    expect(most).toBe(2);
  });

  it('starts nothing after a failure and rejects with it once the calls in flight settle', async () => {
    const finished: number[] = [];
    const run = mapConcurrent([1, 2, 3, 4, 5], 3, async (n) => {
      await new Promise((r) => setTimeout(r, n * 5));
      if (n === 1) throw new Error('one failed');
      finished.push(n);
      return n;
    });
    await expect(run).rejects.toThrow('one failed');
    expect(finished).toEqual([2, 3]);
  });
});
