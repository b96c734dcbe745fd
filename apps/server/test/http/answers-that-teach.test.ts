import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explainRun } from '../../src/analysis/decision/run-explanation.ts';
import type { NightlySummary } from '../../src/analysis/run/nightly.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
let id: string;

beforeAll(async () => {
  h = await startHarness();
  acme = await h.org('org_answers');
  id = await h.experiment(acme.admin, { name: 'checkout-prompt' });
});
afterAll(() => h.close());

const get = (url: string) => h.call(acme.admin, { method: 'GET', url });

describe('dashboard paths take an experiment name as well as its id', () => {
  it('reads, lists versions, changes, sends a test event and reads live counts by name', async () => {
    const byId = (await get(`/v1/experiments/${id}`)).json();
    const byName = await get('/v1/experiments/checkout-prompt');
    expect(byName.statusCode).toBe(200);
    expect(byName.json()).toEqual(byId);
    const put = await h.call(acme.admin, {
      method: 'PUT',
      url: '/v1/experiments/checkout-prompt',
      payload: { variants: byId.variants },
    });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ id, version: 2 });
    const versions = (await get('/v1/experiments/checkout-prompt/versions')).json();
    expect(versions.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    const test = await h.call(acme.admin, {
      method: 'POST',
      url: '/v1/experiments/checkout-prompt/test-event',
    });
    expect(test.statusCode).toBe(202);
    expect(test.json().variant).toBe('control');
    await h.ctx.worker.foldAll();
    expect((await get('/v1/experiments/checkout-prompt/live')).json()).toMatchObject({
      experiment_id: id,
      arms: { control: { exposures: 1, users: 1 } },
    });
  });

  it('answers an unknown name with the experiment-not-found problem', async () => {
    const res = await get('/v1/experiments/no-such-experiment');
    expect(res.json()).toEqual({
      type: '/problems/experiment-not-found',
      title: 'Experiment not found',
      status: 404,
      detail: 'No experiment with the id or name "no-such-experiment" in your org',
      instance: '/v1/experiments/no-such-experiment',
    });
  });

  it("does not reach another org's experiment by its name", async () => {
    const other = await h.org('org_answers_other');
    const res = await h.call(other.admin, {
      method: 'GET',
      url: '/v1/experiments/checkout-prompt',
    });
    expect(res.statusCode).toBe(404);
  });
});

describe('an unknown metric', () => {
  it('answers its own problem type, naming the metrics the experiment has', async () => {
    const res = await h.call(acme.admin, {
      method: 'PUT',
      url: '/v1/experiments/checkout-prompt/metrics/revenue/method',
      payload: { method: 'welch_t' },
    });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      type: '/problems/metric-not-found',
      title: 'Metric not found',
      status: 404,
      detail: 'Experiment checkout-prompt has no metric revenue; its metrics: latency, checkout',
      instance: '/v1/experiments/checkout-prompt/metrics/revenue/method',
      metrics: ['latency', 'checkout'],
    });
    const page = await h.app.inject({ method: 'GET', url: '/problems/metric-not-found' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('The experiment has no metric of this name.');
  });
});

describe('a pipeline run of a day before an experiment existed', () => {
  it('lists the experiment as skipped, says why, and which day covers it', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/v1/admin/pipeline/run',
      headers: { 'x-arbiter-control': h.ctx.controlToken },
      payload: { day: '2020-01-01' },
    });
    const summary = res.json() as NightlySummary;
    const created = (await get(`/v1/experiments/${id}`)).json().created_at as string;
    const day = created.slice(0, 10);
    expect(summary.experiments).toEqual([]);
    expect(summary.skipped).toContainEqual({
      experiment_id: id,
      name: 'checkout-prompt',
      created_at: created,
      reason: `created on ${day}, after 2020-01-01: an analysis window starts on the day the experiment was created, so run the pipeline for ${day} or later (--day ${day})`,
    });
    expect(explainRun(summary, true)).toContain(
      '  1 skipped: created after 2020-01-01, and an analysis window starts on the day the experiment was created; run a later --day for them (checkout-prompt)',
    );
    expect(explainRun(summary, true)[0]).toBe(
      'pipeline ran for 2020-01-01 (yesterday, UTC: the default; pass --day YYYY-MM-DD for another day)',
    );
  });

  it('summarises collecting, halted and computed experiments, and a run that did not happen', () => {
    const summary: NightlySummary = {
      day: '2026-11-21',
      ran: true,
      experiments: [
        { experiment_id: 'a', name: 'slow start', status: 'collecting' },
        { experiment_id: 'b', name: 'split', status: 'srm_halted' },
        { experiment_id: 'c', name: 'done', status: 'computed' },
      ],
      skipped: [],
      purged_events: 0,
    };
    expect(explainRun(summary, false)).toEqual([
      'pipeline ran for 2026-11-21',
      '  1 results computed (done)',
      '  1 collecting: an arm has fewer evaluated events than the threshold; GET /v1/experiments/NAME/results gives the counts so far (slow start)',
      '  1 halted by the SRM check: the traffic split differs from the allocation (split)',
      '  (--json prints each experiment with its id and status)',
    ]);
    // Many experiments: a count and the first few names, not a list of every org's experiments.
    const many = Array.from({ length: 7 }, (_, i) => ({
      experiment_id: `e${i}`,
      name: `exp-${i}`,
      status: 'collecting',
    }));
    expect(explainRun({ ...summary, experiments: many }, false)[1]).toMatch(
      / 7 collecting: .* \(exp-0, exp-1, exp-2, exp-3, exp-4 and 2 more\)$/,
    );
    expect(explainRun({ ...summary, ran: false, experiments: [] }, true)).toEqual([
      'pipeline did not run for 2026-11-21: another process holds the nightly lease (it is running now); try again when it ends',
    ]);
    expect(explainRun({ ...summary, experiments: [] }, false)).toEqual([
      'pipeline ran for 2026-11-21',
      'no experiments exist yet: create one with POST /v1/experiments',
    ]);
  });
});
