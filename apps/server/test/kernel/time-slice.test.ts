import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { TimeSlice } from '../../src/kernel/time-slice.ts';

/** Busy work until the slice is used up, `slices` times; the neighbour's turn at each resume. */
async function busy(slice: TimeSlice, slices: number, turn: () => number): Promise<number[]> {
  const resumedAt: number[] = [];
  for (let i = 0; i < slices; i++) {
    while (!slice.due) Math.sqrt(i);
    await slice.pause();
    resumedAt.push(turn());
  }
  return resumedAt;
}

describe('TimeSlice', () => {
  it('resumes one paused slice per turn of the event loop, however many are paused', async () => {
    // The neighbour counts the loop's turns: one immediate per turn, each set from the last.
    let turns = 0;
    let running = true;
    const neighbour = (async () => {
      while (running) {
        await nextTurn();
        turns++;
      }
    })();
    const all = await Promise.all(
      Array.from({ length: 4 }, () => busy(new TimeSlice(1), 5, () => turns)),
    );
    running = false;
    await neighbour;
    const resumes = all.flat();
    expect(resumes).toHaveLength(20);
    // No two slices resumed within one turn: the neighbour ran between any two of them.
    expect(new Set(resumes).size).toBe(resumes.length);
  });

  it('does not pause before its budget is used', async () => {
    const slice = new TimeSlice(60_000);
    let resumedInline = false;
    const paused = slice.pause().then(() => {
      resumedInline = true;
    });
    await Promise.resolve();
    expect(resumedInline).toBe(true);
    await paused;
  });
});
