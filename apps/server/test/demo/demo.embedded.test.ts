import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devEnv, type RunningServer, runCli, startServer } from '../support/process.ts';

/** `arbiter demo` against a fresh embedded server, checked through the API as a newcomer would. */
let env: Record<string, string>;
let server: RunningServer;
let auth: Record<string, string>;

beforeAll(async () => {
  env = devEnv(mkdtempSync(join(tmpdir(), 'arbiter-demo-')));
  server = await startServer(env);
  const token = runCli(
    ['token', '--email', 'demo@example.com', '--org', 'arbiter-demo', '--role', 'admin'],
    env,
  );
  auth = { authorization: `Bearer ${token.stdout}` };
}, 120_000);
afterAll(async () => {
  server.child.kill('SIGTERM');
  await server.exited;
});

const get = async (path: string) => {
  const res = await fetch(`${server.url}${path}`, { headers: auth });
  // biome-ignore lint/suspicious/noExplicitAny: each test reads the fields of the route it calls
  return { status: res.status, body: (await res.json()) as any };
};

describe('arbiter demo', () => {
  let firstOutput: string;

  it('seeds two experiments, sends traffic, runs the pipeline and prints where to look', async () => {
    const run = runCli(['demo'], env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    firstOutput = run.stdout;
    const url = server.url.replace('127.0.0.1', 'localhost');
    expect(run.stdout).toContain(`${url}/v1/experiments/demo-checkout-prompt/results`);
    expect(run.stdout).toContain(
      '  TOKEN=$(npx arbiter token --email demo@example.com --org arbiter-demo --role admin)',
    );
    // The dashboard page of each experiment's results, by id: a link a browser opens as it is.
    const { id } = (await get('/v1/experiments/demo-checkout-prompt')).body as { id: string };
    expect(run.stdout).toContain(
      'Dashboard (sign in with Email demo@example.com, Organization arbiter-demo, Role admin):',
    );
    // With the demo's sign-in, which the dashboard's development form fills itself in from.
    expect(run.stdout).toContain(
      `  ${url}/experiments/${id}/results?email=demo%40example.com&org=arbiter-demo&role=admin\n`,
    );
  }, 120_000);

  it('gives a significant metric, a null and a passed SRM check on the first experiment', async () => {
    const { status, body } = await get('/v1/experiments/demo-checkout-prompt/results');
    expect(status).toBe(200);
    expect(body.srm.halted).toBe(false);
    expect(body.srm.p_value).toBeGreaterThan(0.001);
    const checkout = body.results['checkout::concise'];
    expect(checkout).toMatchObject({ metric: 'checkout', significant: true, ok: true });
    expect(checkout.effect).toBeGreaterThan(0);
    expect(checkout.p_value_fdr).toBeLessThan(0.05);
    expect(body.results['latency::concise'].significant).toBe(false);
    expect(body.arms.control.events).toBeGreaterThanOrEqual(200);
    expect(body.arms.concise.events).toBeGreaterThanOrEqual(200);
  });

  it('ships the winner the first experiment’s results recommend: stopped, its last run final', async () => {
    const { body } = await get('/v1/experiments/demo-checkout-prompt');
    expect(body.status).toBe('stopped');
    expect(body.stop).toMatchObject({ conclusion: 'ship', served_variant: 'concise' });
    const results = (await get('/v1/experiments/demo-checkout-prompt/results')).body;
    expect(results).toMatchObject({ final: true, window: { end: body.stop.stopped_at } });
    expect(results.decision).toMatchObject({ recommendation: 'ship', treatment: 'concise' });
    expect(firstOutput).toContain(
      `  demo-checkout-prompt: stopped (ship), serving concise to every user since ${body.stop.stopped_at}\n`,
    );
  });

  it('leaves the second experiment collecting, with its counts against the threshold', async () => {
    const { status, body } = await get('/v1/experiments/demo-onboarding-tone/results');
    expect(status).toBe(404);
    expect(body).toMatchObject({
      type: '/problems/results-collecting',
      min_events_per_arm: 200,
      setting: 'ARBITER_MIN_EVENTS_PER_ARM',
    });
    const counts = Object.values(body.events_per_arm as Record<string, number>);
    expect(counts).toHaveLength(2);
    for (const n of counts) expect(n).toBeGreaterThan(0);
    for (const n of counts) expect(n).toBeLessThan(200);
  });

  it('runs one offline evaluation: a dataset and a completed run with results, through the API', async () => {
    const dataset = await get('/v1/datasets/demo-support-questions');
    expect(dataset.status).toBe(200);
    expect(dataset.body).toMatchObject({ version: 2, item_count: 40 });
    const runs = await get('/v1/experiments/demo-checkout-prompt/offline-runs');
    expect(runs.status).toBe(200);
    expect(runs.body).toHaveLength(1);
    const run = runs.body[0];
    expect(run).toMatchObject({
      dataset_id: dataset.body.id,
      dataset_version: 2,
      variants: ['control', 'concise'],
      repeats: 3,
      status: 'complete',
      expected_results: 240,
      received_results: 240,
    });
    expect(run.coverage).toMatchObject({ missing_results: 0, failed_results: 0 });
    expect(run.scorers.map((s: { name: string }) => s.name)).toEqual([
      'mentions_answer',
      'latency_ms',
      'total_tokens',
      'error_rate',
    ]);
    // The planted effects: the concise prompt names the fact more often, with fewer tokens.
    expect(run.comparisons['mentions_answer::concise']).toMatchObject({
      test: 'paired_t',
      n_items: 40,
      outcome: 'better',
    });
    expect(run.comparisons['total_tokens::concise'].outcome).toBe('better');
    expect(run.gates.concise.passed).toBe(true);
    expect(Object.keys(run.summary)).toContain('mentions_answer::concise');
    expect(firstOutput).toContain(`/v1/offline-runs/${run.id}`);
    expect(firstOutput).toContain('mentions_answer::concise better');
    const items = await get(`/v1/offline-runs/${run.id}/items?limit=5`);
    expect(items.status).toBe(200);
    expect(items.body.data).toHaveLength(5);
    expect(items.body.data[0].variants.concise).toHaveLength(3);
  });

  it('changes nothing when run again', async () => {
    const before = {
      offline: (await get('/v1/experiments/demo-checkout-prompt/offline-runs')).body,
      dataset: (await get('/v1/datasets/demo-support-questions')).body,
      list: (await get('/v1/experiments')).body,
      traffic: (await get('/v1/experiments/demo-checkout-prompt/traffic')).body,
      results: (await get('/v1/experiments/demo-checkout-prompt/results')).body.results,
      keys: (await get('/v1/keys')).body,
    };
    const again = runCli(['demo'], env);
    expect(again.code).toBe(0);
    // The collecting experiment's time to a decision is a live estimate: its arrival rate is
    // per day of a window that ends now, so a minute later it may round to another day.
    const withoutEstimate = (out: string) => out.replace(/about \d+ more days?/g, 'about N days');
    expect(withoutEstimate(again.stdout)).toBe(withoutEstimate(firstOutput));
    // The rerun runs the pipeline again: each experiment's last run is the same run (label,
    // kind, status), computed again a moment later.
    type Listed = { last_run: { computed_at: string } | null };
    const runTimeless = (list: Listed[]) =>
      list.map((e) => ({ ...e, last_run: e.last_run && { ...e.last_run, computed_at: 'T' } }));
    const after = (await get('/v1/experiments')).body as Listed[];
    expect(runTimeless(after)).toEqual(runTimeless(before.list as Listed[]));
    after.forEach((e, i) => {
      const earlier = (before.list as Listed[])[i]?.last_run?.computed_at ?? '';
      expect(Date.parse(e.last_run?.computed_at ?? '')).toBeGreaterThanOrEqual(Date.parse(earlier));
    });
    expect((await get('/v1/experiments/demo-checkout-prompt/traffic')).body).toEqual(
      before.traffic,
    );
    expect((await get('/v1/experiments/demo-checkout-prompt/results')).body.results).toEqual(
      before.results,
    );
    expect((await get('/v1/keys')).body).toEqual(before.keys);
    expect((await get('/v1/experiments/demo-checkout-prompt/offline-runs')).body).toEqual(
      before.offline,
    );
    expect((await get('/v1/datasets/demo-support-questions')).body).toEqual(before.dataset);
  }, 120_000);

  it('refuses a server that is not on this machine, before sending anything', () => {
    const refused = runCli(['demo', '--url', 'http://192.0.2.10:8080'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'arbiter: demo: the demo only runs against a server on this machine, not http://192.0.2.10:8080\n',
    );
  });
});
