import { Cron } from 'croner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releaseLeasesOfThisProcess, withLease } from '../../../src/analysis/run/run-lease.ts';
import { previousUtcDay } from '../../../src/kernel/utc-day.ts';
import { type Harness, startHarness } from '../../support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('the nightly lease', () => {
  it('lets one runner in at a time and frees itself when the work ends', async () => {
    const now = new Date();
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const first = withLease(h.ctx.db, 'nightly-test', 60_000, now, async () => {
      await held;
      return 'first';
    });
    // give the first holder time to take the lease
    await new Promise((r) => setTimeout(r, 50));
    expect(await withLease(h.ctx.db, 'nightly-test', 60_000, now, async () => 'second')).toBeNull();
    release();
    expect(await first).toBe('first');
    expect(await withLease(h.ctx.db, 'nightly-test', 60_000, now, async () => 'third')).toBe(
      'third',
    );
  });

  it('is taken over once a dead holder’s lease has expired', async () => {
    const start = new Date('2026-11-21T00:15:00Z');
    const crashed = withLease(h.ctx.db, 'crashy', 1000, start, () => new Promise<never>(() => {}));
    void crashed;
    await new Promise((r) => setTimeout(r, 50));
    expect(
      await withLease(
        h.ctx.db,
        'crashy',
        1000,
        new Date(start.getTime() + 500),
        async () => 'too early',
      ),
    ).toBeNull();
    expect(
      await withLease(
        h.ctx.db,
        'crashy',
        1000,
        new Date(start.getTime() + 2000),
        async () => 'taken over',
      ),
    ).toBe('taken over');
  });
});

describe('a hard stop', () => {
  it('gives back the leases this process holds, so the next runner need not wait for expiry', async () => {
    const now = new Date('2026-11-22T00:15:00Z');
    const stuck = withLease(
      h.ctx.db,
      'hard-stop',
      3_600_000,
      now,
      () => new Promise<never>(() => {}),
    );
    void stuck;
    await new Promise((r) => setTimeout(r, 50));
    expect(
      await withLease(h.ctx.db, 'hard-stop', 3_600_000, now, async () => 'blocked'),
    ).toBeNull();
    expect(await releaseLeasesOfThisProcess(h.ctx.db)).toBe(1);
    expect(await withLease(h.ctx.db, 'hard-stop', 3_600_000, now, async () => 'free')).toBe('free');
  });
});

describe('the schedule', () => {
  it('runs at 00:15 UTC by default, for the previous UTC day', () => {
    const job = new Cron(h.ctx.config.nightlyCron, { timezone: 'UTC', paused: true });
    expect(job.nextRun(new Date('2026-11-21T10:00:00Z'))?.toISOString()).toBe(
      '2026-11-22T00:15:00.000Z',
    );
    job.stop();
    expect(previousUtcDay(new Date('2026-11-22T00:15:00Z'))).toBe('2026-11-21');
  });
});
