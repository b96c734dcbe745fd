import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../support/harness.ts';

const TOKEN = 'scrape-token-0123456789abcdef';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The Prometheus text format, line by line: `name{label="value",…} number`. */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[pair[1] as string] = (pair[2] as string).replace(/\\(.)/g, '$1');
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return samples;
}

function sampleValue(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.find(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  return found?.value ?? 0;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

describe('/metrics when ARBITER_METRICS=true', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ ARBITER_METRICS: 'true', ARBITER_METRICS_TOKEN: TOKEN });
  });
  afterAll(() => h.close());

  const scrape = async () => {
    const res = await h.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return parse(res.body);
  };

  it('refuses a scrape without the bearer token, or with another', async () => {
    const none = await h.app.inject({ method: 'GET', url: '/metrics' });
    expect(none.statusCode).toBe(401);
    expect(none.json().type).toBe('/problems/missing-credential');
    const wrong = await h.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: 'Bearer not-the-token' },
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().type).toBe('/problems/invalid-credential');
  });

  it('counts exactly the requests sent, by route template and status class', async () => {
    const org = await h.org('metrics');
    const experimentId = await h.experiment(org.admin, { name: 'metered' });
    const before = await scrape();
    for (let i = 0; i < 3; i++) await h.app.inject({ method: 'GET', url: '/healthz' });
    for (let i = 0; i < 2; i++) await h.call(null, { method: 'GET', url: '/v1/experiments' });
    await h.call(org.admin, { method: 'GET', url: `/v1/experiments/${experimentId}` });
    const after = await scrape();
    const delta = (labels: Record<string, string>) =>
      sampleValue(after, 'arbiter_http_requests_total', labels) -
      sampleValue(before, 'arbiter_http_requests_total', labels);
    expect(delta({ method: 'GET', route: '/healthz', status_class: '2xx' })).toBe(3);
    expect(delta({ method: 'GET', route: '/v1/experiments', status_class: '4xx' })).toBe(2);
    expect(delta({ method: 'GET', route: '/v1/experiments/:id', status_class: '2xx' })).toBe(1);
    const count = (s: Sample[]) =>
      sampleValue(s, 'arbiter_http_request_duration_seconds_count', {
        route: '/healthz',
        status_class: '2xx',
      });
    expect(count(after) - count(before)).toBe(3);
    // No label carries an id: route templates, never the path with its values.
    for (const sample of after)
      for (const value of Object.values(sample.labels)) expect(value).not.toMatch(UUID);
  });

  it('exports the fold backlog and lag, and the process defaults', async () => {
    await h.ctx.db.execute(
      sql`insert into ingest_pending (txid, accepted_at)
          values (42, statement_timestamp() - interval '10 minutes')`,
    );
    const samples = await scrape();
    expect(sampleValue(samples, 'arbiter_fold_lag_seconds')).toBeGreaterThanOrEqual(600);
    expect(samples.some((s) => s.name === 'arbiter_fold_backlog_events')).toBe(true);
    expect(samples.some((s) => s.name === 'arbiter_process_cpu_user_seconds_total')).toBe(true);
    await h.ctx.worker.foldAll();
    expect(sampleValue(await scrape(), 'arbiter_fold_lag_seconds')).toBe(0);
  });
});

describe('/metrics by default', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('is off: 404', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(404);
  });
});
