import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PeriodicPass } from '../../src/kernel/periodic-pass.ts';

describe('PeriodicPass', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs a pass each interval after start, none before', async () => {
    let passes = 0;
    const loop = new PeriodicPass(100, async () => {
      passes++;
    });
    await vi.advanceTimersByTimeAsync(250);
    expect(passes).toBe(0);
    loop.start();
    loop.start(); // a second start keeps the one timer
    await vi.advanceTimersByTimeAsync(250);
    expect(passes).toBe(2);
    await loop.stop();
    await vi.advanceTimersByTimeAsync(500);
    expect(passes).toBe(2);
  });

  it('skips the ticks that come while a pass runs, and stop waits for that pass', async () => {
    let started = 0;
    let finished = 0;
    let release = () => {};
    const loop = new PeriodicPass(100, async () => {
      started++;
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      finished++;
    });
    loop.start();
    await vi.advanceTimersByTimeAsync(450);
    expect(started).toBe(1);
    const stopped = loop.stop();
    let done = false;
    void stopped.then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(false);
    release();
    await stopped;
    expect(finished).toBe(1);
    expect(started).toBe(1);
  });
});
