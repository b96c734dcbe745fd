import { describe, expect, it } from 'vitest';
import { measuredRun } from '../../../src/analysis/run/run-metrics.ts';
import { type Clock, type Metrics, silentMetrics } from '../../../src/kernel/ports.ts';

/** A clock that moves `stepMs` each time it is read. */
function steppingClock(stepMs: number): Clock {
  let at = Date.parse('2026-11-23T03:00:00Z');
  return {
    now: () => {
      const now = new Date(at);
      at += stepMs;
      return now;
    },
  };
}

function recording() {
  const runs: Array<[string, string, number]> = [];
  const metrics: Metrics = {
    ...silentMetrics,
    observeRun: (kind, outcome, seconds) => runs.push([kind, outcome, seconds]),
  };
  return { runs, metrics };
}

describe('measuredRun', () => {
  it('counts a run that ends with the outcome it gives, timed on the clock', async () => {
    const { runs, metrics } = recording();
    const deps = { clock: steppingClock(1500), metrics };
    expect(
      await measuredRun(
        deps,
        'nightly',
        async () => ({ ran: false }),
        (r) => (r.ran ? 'succeeded' : 'skipped'),
      ),
    ).toEqual({ ran: false });
    expect(await measuredRun(deps, 'manual', async () => 7)).toBe(7);
    expect(runs).toEqual([
      ['nightly', 'skipped', 1.5],
      ['manual', 'succeeded', 1.5],
    ]);
  });

  it('counts a run that throws as failed, and lets the error go on', async () => {
    const { runs, metrics } = recording();
    const boom = new Error('the database went away');
    await expect(
      measuredRun({ clock: steppingClock(250), metrics }, 'nightly', async () => {
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(runs).toEqual([['nightly', 'failed', 0.25]]);
  });
});
