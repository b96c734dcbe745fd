import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestAll, runNightlyFor, today } from '../../support/analysis-data.ts';
import { type Harness, startHarness } from '../../support/harness.ts';

/**
 * The experiments list says when the pipeline last looked at each experiment and what it found,
 * a collecting run included: the results routes serve only runs with results.
 */
let h: Harness;
let org: Awaited<ReturnType<Harness['org']>>;

beforeAll(async () => {
  h = await startHarness({ ARBITER_MIN_EVENTS_PER_ARM: '3' });
  org = await h.org('last-run-org');
});
afterAll(() => h.close());

const list = async () =>
  (await h.call(org.admin, { method: 'GET', url: '/v1/experiments' })).json() as Array<{
    id: string;
    last_run: { label: string; kind: string; status: string; computed_at: string } | null;
  }>;

const exposures = (id: string, from: number, count: number) =>
  Array.from({ length: count }, (_, i) => ({
    event_id: `x-${id}-${from + i}`,
    type: 'exposure',
    experiment_id: id,
    user_id: `u${from + i}`,
    variant: (from + i) % 2 === 0 ? 'control' : 'treatment',
    timestamp: new Date().toISOString(),
  }));

describe('last_run in the experiments list', () => {
  it('is null before any run, then names a collecting run the results routes do not serve', async () => {
    const id = await h.experiment(org.admin, { name: 'looked-at' });
    expect((await list()).find((e) => e.id === id)?.last_run).toBeNull();
    await ingestAll(h, org.secret, exposures(id, 0, 2));
    const summary = await runNightlyFor(h, today());
    expect(summary.experiments.map((e: { status: string }) => e.status)).toEqual(['collecting']);
    const last = (await list()).find((e) => e.id === id)?.last_run;
    expect(last).toMatchObject({ label: today(), kind: 'nightly', status: 'collecting' });
    expect(Number.isNaN(Date.parse(last?.computed_at ?? ''))).toBe(false);
    const served = await h.call(org.admin, { method: 'GET', url: '/v1/results/summary' });
    expect(served.json()).toEqual([]);
  });

  it('follows the latest run once results exist', async () => {
    const id = await h.experiment(org.admin, { name: 'computed-now' });
    await ingestAll(h, org.secret, exposures(id, 100, 12));
    const run = await h.call(org.admin, { method: 'POST', url: `/v1/experiments/${id}/analyze` });
    expect(run.statusCode).toBe(200);
    const last = (await list()).find((e) => e.id === id)?.last_run;
    expect(last).toMatchObject({
      label: run.json().computed_for,
      kind: 'manual',
      status: 'computed',
    });
  });
});
