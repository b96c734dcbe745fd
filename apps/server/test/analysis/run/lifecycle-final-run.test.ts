import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nightlyWindow } from '../../../src/analysis/run/nightly.ts';
import { ingestAll, runNightlyFor, seeded } from '../../support/analysis-data.ts';
import { metric } from '../../support/builders.ts';
import { type Harness, startHarness } from '../../support/harness.ts';

/**
 * A stopped experiment is analysed once more for the day it stopped, its window ending at the
 * stop, and that run is final; events after the stop are accepted and never analysed, by a
 * re-run of that night, a later night or a manual run.
 */
const DAY_MS = 86_400_000;
let clock = Date.now();
let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;

beforeAll(async () => {
  h = await startHarness({}, { clock: { now: () => new Date(clock) } });
  acme = await h.org('lifecycle-analysis');
});
afterAll(() => h.close());

const USERS = 600;
const results = async (id: string, day?: string) => {
  const res = await h.call(acme.admin, {
    method: 'GET',
    url: `/v1/experiments/${id}/results${day === undefined ? '' : `?day=${day}`}`,
  });
  expect(res.statusCode).toBe(200);
  return res.json();
};
/** Each user's exposure and one model call, at `at`; `latency` gives the call's latency. */
function eventsAt(id: string, at: Date, prefix: string, latency: (variant: string) => number) {
  return async () => {
    const events: object[] = [];
    for (let u = 0; u < USERS; u++) {
      const user = `u${u}`;
      const variant = (
        await h.ingest(acme.secret, {
          method: 'POST',
          url: '/v1/assign',
          payload: { experiment_id: id, user_id: user },
        })
      ).json().variant as string | null;
      const base = { experiment_id: id, user_id: user, timestamp: at.toISOString() };
      events.push({ ...base, event_id: `${prefix}-x-${u}`, type: 'exposure' });
      events.push({
        ...base,
        event_id: `${prefix}-m-${u}`,
        type: 'model_call',
        latency_ms: latency(variant ?? 'control'),
        input_tokens: 10,
        output_tokens: 10,
        model: 'm',
      });
    }
    return events;
  };
}

describe('the final run of a stopped experiment', () => {
  it('ends its window at the stop, and events after the stop change no result', async () => {
    const created = await h.call(acme.admin, {
      method: 'POST',
      url: '/v1/experiments',
      payload: {
        name: 'stops-today',
        salt: 'stops-today',
        bucket_count: 1000,
        allocation: [
          { variant: 'control', weight: 50 },
          { variant: 'treatment', weight: 50 },
        ],
        metrics: [metric('latency', 'latency', 'welch_t', 'primary')],
      },
    });
    const id = created.json().id as string;
    const rng = seeded(11);
    const before = await eventsAt(id, new Date(clock - 60_000), 'before', (v) =>
      Math.max(1, rng.normal(v === 'treatment' ? 450 : 500, 50)),
    )();
    await ingestAll(h, acme.secret, before);
    const stopped = await h.call(acme.admin, {
      method: 'POST',
      url: `/v1/experiments/${id}/stop`,
      payload: { conclusion: 'ship', variant: 'treatment' },
    });
    const stoppedAt = stopped.json().stop.stopped_at as string;
    expect(stoppedAt).toBe(new Date(clock).toISOString());
    const day = stoppedAt.slice(0, 10);

    const first = await runNightlyFor(h, day);
    expect(first.experiments).toContainEqual({
      experiment_id: id,
      name: 'stops-today',
      status: 'computed',
    });
    const finalRun = await results(id);
    expect(finalRun).toMatchObject({ computed_for: day, final: true, preliminary: false });
    expect(finalRun.window.end).toBe(stoppedAt);

    // The next day, events of the same users with a far larger effect: accepted, never analysed.
    clock += DAY_MS;
    const after = await eventsAt(id, new Date(clock - 60_000), 'after', (v) =>
      v === 'treatment' ? 100 : 5000,
    )();
    await ingestAll(h, acme.secret, after);
    const rerun = await runNightlyFor(h, day);
    expect(rerun.experiments.map((e: { experiment_id: string }) => e.experiment_id)).toContain(id);
    const again = await results(id);
    const { computed_at: _a, ...kept } = finalRun;
    const { computed_at: _b, ...rerunKept } = again;
    expect(rerunKept).toEqual(kept);
    const next = await runNightlyFor(h, new Date(clock).toISOString().slice(0, 10));
    expect(next.experiments.map((e: { experiment_id: string }) => e.experiment_id)).not.toContain(
      id,
    );
    expect((await results(id)).available_days).toEqual([day]);

    // A manual run reads up to the stop as well.
    const manual = await h.call(acme.admin, {
      method: 'POST',
      url: `/v1/experiments/${id}/analyze`,
    });
    expect(manual.statusCode).toBe(200);
    expect(manual.json().window.end).toBe(stoppedAt);
    expect(manual.json().arms).toEqual(finalRun.arms);
    expect(manual.json().final).toBe(false);

    // Results stay readable once archived.
    await h.call(acme.admin, { method: 'POST', url: `/v1/experiments/${id}/archive` });
    expect((await results(id, day)).final).toBe(true);
  });
});

describe('nightlyWindow', () => {
  const dayEnd = new Date('2026-11-30T00:00:00.000Z');
  const at = (iso: string) => new Date(iso);
  it('analyses running experiments over the day, stopped ones up to the stop once, drafts never', () => {
    expect(nightlyWindow({ status: 'running', stoppedAt: null }, dayEnd)).toEqual({
      windowEnd: dayEnd,
      final: false,
    });
    expect(nightlyWindow({ status: 'draft', stoppedAt: null }, dayEnd)).toBeNull();
    expect(nightlyWindow({ status: 'archived', stoppedAt: null }, dayEnd)).toBeNull();
    const stop = at('2026-11-29T15:30:00.000Z');
    for (const status of ['stopped', 'archived'] as const) {
      expect(nightlyWindow({ status, stoppedAt: stop }, dayEnd)).toEqual({
        windowEnd: stop,
        final: true,
      });
      expect(
        nightlyWindow({ status, stoppedAt: stop }, new Date(dayEnd.getTime() + DAY_MS)),
      ).toBeNull();
    }
    // a night before the stop, re-run, is analysed as it was while the experiment ran
    const earlier = new Date(dayEnd.getTime() - DAY_MS);
    expect(nightlyWindow({ status: 'stopped', stoppedAt: stop }, earlier)).toEqual({
      windowEnd: earlier,
      final: false,
    });
  });
});
