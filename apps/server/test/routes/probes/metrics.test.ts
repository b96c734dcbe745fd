import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNightly } from '../../../src/analysis/run/nightly.ts';
import { previousUtcDay } from '../../../src/kernel/utc-day.ts';
import { exposuresForUsers, modelCallsForUsers } from '../../support/builders.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import {
  type Family,
  parsePrometheus,
  type Sample,
  samplesOf,
  sampleValue,
} from '../../support/prometheus.ts';

const TOKEN = 'scrape-token-0123456789abcdef';
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const POOL_GAUGES = [
  'arbiter_db_pool_connections',
  'arbiter_db_pool_idle_connections',
  'arbiter_db_pool_waiting_requests',
];

describe('/metrics when ARBITER_METRICS=true', () => {
  let h: Harness;
  let org: Awaited<ReturnType<Harness['org']>>;
  let experimentId: string;
  /** Every id the tests send: none may appear in a label. */
  const idsSent = new Set<string>();
  beforeAll(async () => {
    h = await startHarness({ ARBITER_METRICS: 'true', ARBITER_METRICS_TOKEN: TOKEN });
    org = await h.org('metrics');
    experimentId = await h.experiment(org.admin, { name: 'metered' });
    idsSent.add(org.orgId).add(experimentId);
  });
  afterAll(() => h.close());

  const scrapeFamilies = async (): Promise<Family[]> => {
    const res = await h.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return parsePrometheus(res.body);
  };
  const scrape = async (): Promise<Sample[]> => samplesOf(await scrapeFamilies());
  /** How much each named sample moved while `work` ran. */
  const movedBy = async (work: () => Promise<void>) => {
    const before = await scrape();
    await work();
    const after = await scrape();
    return (name: string, labels: Record<string, string>) =>
      sampleValue(after, name, labels) - sampleValue(before, name, labels);
  };
  const sendEvents = (events: unknown[]) =>
    h.ingest(org.secret, { method: 'POST', url: '/v1/events', payload: { events } });

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
    const delta = await movedBy(async () => {
      for (let i = 0; i < 3; i++) await h.app.inject({ method: 'GET', url: '/healthz' });
      for (let i = 0; i < 2; i++) await h.call(null, { method: 'GET', url: '/v1/experiments' });
      await h.call(org.admin, { method: 'GET', url: `/v1/experiments/${experimentId}` });
    });
    const requests = (labels: Record<string, string>) =>
      delta('arbiter_http_requests_total', labels);
    expect(requests({ method: 'GET', route: '/healthz', status_class: '2xx' })).toBe(3);
    expect(requests({ method: 'GET', route: '/v1/experiments', status_class: '4xx' })).toBe(2);
    expect(requests({ method: 'GET', route: '/v1/experiments/:id', status_class: '2xx' })).toBe(1);
    // The scrape between the two readings is counted too: one, on its own route.
    expect(requests({ method: 'GET', route: '/metrics', status_class: '2xx' })).toBe(1);
    expect(
      delta('arbiter_http_request_duration_seconds_count', {
        route: '/healthz',
        status_class: '2xx',
      }),
    ).toBe(3);
  });

  it('counts each event sent once, by type and outcome: batch, retry and import', async () => {
    const exposures = exposuresForUsers(experimentId, 3, {
      prefix: 'mx',
      userOf: (i) => `mu-${i}`,
    });
    const calls = modelCallsForUsers(experimentId, 2, { prefix: 'mc', userOf: (i) => `mv-${i}` });
    const badExposure = {
      ...exposuresForUsers(experimentId, 1, { prefix: 'mbad' })[0],
      user_id: '',
    };
    const day = `${previousUtcDay(new Date())}T10:00:00Z`;
    const line = (id: string, user: string) =>
      JSON.stringify({
        event_id: id,
        type: 'exposure',
        experiment_id: experimentId,
        user_id: user,
        timestamp: day,
      });
    for (const e of [...exposures, ...calls]) idsSent.add(e.event_id).add(e.user_id);
    idsSent.add('mi-1').add('mi-3').add('mi-user-1').add('mi-user-2');
    const event = (type: string, outcome: string) =>
      delta('arbiter_events_total', { type, outcome });
    const delta = await movedBy(async () => {
      const batch = await sendEvents([
        ...exposures,
        ...calls,
        badExposure,
        { type: 'nonsense' },
        42,
      ]);
      expect(batch.statusCode).toBe(202);
      expect(batch.json()).toMatchObject({ accepted: 5, duplicates: 0 });
      const retry = await sendEvents([exposures[0]]);
      expect(retry.json()).toMatchObject({ accepted: 1, duplicates: 1 });
      const imported = await h.ingest(org.secret, {
        method: 'POST',
        url: '/v1/events/import',
        headers: { 'content-type': 'application/x-ndjson' },
        payload: [
          line('mi-1', 'mi-user-1'),
          'not json',
          line('mi-2', ''),
          line('mi-3', 'mi-user-2'),
        ].join('\n'),
      });
      expect(imported.statusCode).toBe(200);
      expect(imported.json()).toMatchObject({ events: 2 });
    });
    expect(event('exposure', 'accepted')).toBe(5);
    expect(event('model_call', 'accepted')).toBe(2);
    expect(event('exposure', 'duplicate')).toBe(1);
    expect(event('exposure', 'refused')).toBe(2);
    // `nonsense`, 42 and the import's line that is no JSON: no known type to count them under.
    expect(event('unknown', 'refused')).toBe(3);
    expect(event('business_event', 'accepted')).toBe(0);
    expect(event('model_call', 'refused')).toBe(0);
  });

  it('counts an event the fold sets aside as quarantined, by its type', async () => {
    const delta = await movedBy(async () => {
      // A business event without a metric cannot enter the aggregates (see ingest/quarantine).
      await h.ctx.db.execute(sql`
        insert into events (org_id, event_id, type, experiment_id, user_id, variant, occurred_at,
          received_at, business_metric, value)
        values (${org.orgId}, 'mq-bad', 'business_event', ${experimentId}, 'mq-user', 'control',
          now(), now(), null, 5)`);
      await h.ctx.worker.foldAll();
    });
    idsSent.add('mq-bad').add('mq-user');
    expect(delta('arbiter_events_total', { type: 'business_event', outcome: 'quarantined' })).toBe(
      1,
    );
    expect(delta('arbiter_events_total', { type: 'exposure', outcome: 'quarantined' })).toBe(0);
  });

  it('counts manual and nightly runs by outcome, with their durations', async () => {
    const delta = await movedBy(async () => {
      const manual = await h.call(org.admin, {
        method: 'POST',
        url: `/v1/experiments/${experimentId}/analyze`,
      });
      expect(manual.statusCode).toBe(200);
      const nightly = await runNightly(h.ctx, previousUtcDay(new Date()), 60_000);
      expect(nightly.ran).toBe(true);
    });
    const runs = (kind: string, outcome: string) =>
      delta('arbiter_analysis_runs_total', { kind, outcome });
    expect(runs('manual', 'succeeded')).toBe(1);
    expect(runs('nightly', 'succeeded')).toBe(1);
    expect(runs('manual', 'failed') + runs('nightly', 'failed') + runs('nightly', 'skipped')).toBe(
      0,
    );
    const timed = (kind: string) =>
      delta('arbiter_analysis_run_duration_seconds_count', { kind, outcome: 'succeeded' });
    expect(timed('manual')).toBe(1);
    expect(timed('nightly')).toBe(1);
  });

  it('exports the fold backlog and lag, the process defaults, and the pool on PostgreSQL', async () => {
    await h.ctx.db.execute(
      sql`insert into ingest_pending (txid, accepted_at)
          values (42, statement_timestamp() - interval '10 minutes')`,
    );
    const samples = await scrape();
    expect(sampleValue(samples, 'arbiter_fold_lag_seconds')).toBeGreaterThanOrEqual(600);
    expect(samples.some((s) => s.name === 'arbiter_fold_backlog_events')).toBe(true);
    expect(samples.some((s) => s.name === 'arbiter_process_cpu_user_seconds_total')).toBe(true);
    // The embedded database has no pool: one in-process connection, so no pool gauges.
    const pool = POOL_GAUGES.map((name) => samples.find((s) => s.name === name));
    if (h.databaseUrl === null) expect(pool).toEqual([undefined, undefined, undefined]);
    else {
      const [open, idle, waiting] = pool.map((s) => s?.value);
      expect(open).toBeGreaterThanOrEqual(1);
      expect(idle).toBeLessThanOrEqual(open as number);
      expect(waiting).toBe(0);
    }
    await h.ctx.worker.foldAll();
    expect(sampleValue(await scrape(), 'arbiter_fold_lag_seconds')).toBe(0);
  });

  it('carries no id in any label: no org, user, experiment or event id', async () => {
    const samples = await scrape();
    expect(idsSent.size).toBeGreaterThan(10);
    const values = samples.flatMap((s) => Object.values(s.labels));
    expect(values.length).toBeGreaterThan(0);
    expect(values.filter((v) => UUID.test(v))).toEqual([]);
    expect(values.filter((v) => [...idsSent].some((id) => v.includes(id)))).toEqual([]);
    // Each label is one of a closed set of names.
    const names = new Set(samples.flatMap((s) => Object.keys(s.labels)));
    const allowed = ['method', 'route', 'status_class', 'type', 'outcome', 'kind', 'le'];
    const defaults = ['version', 'major', 'minor', 'patch', 'space'];
    expect([...names].filter((n) => !allowed.includes(n) && !defaults.includes(n))).toEqual([]);
  });

  it('exports exactly the names, types and help texts docs/operations.md lists; its alerts read them', async () => {
    const doc = readFileSync(new URL('../../../../../docs/operations.md', import.meta.url), 'utf8');
    const section = doc.slice(
      doc.indexOf('## Metrics'),
      doc.indexOf('\n## ', doc.indexOf('## Metrics') + 1),
    );
    const documented = [
      ...section.matchAll(/^\| `(arbiter_[a-z0-9_]+)` \| (\w+) \| (.+) \|$/gm),
    ].map((m) => ({ name: m[1], type: m[2], help: m[3] }));
    // The parser names a counter's family without `_total`; the exposition (and the table) with it.
    const exported = (await scrapeFamilies()).map((f) => ({
      name: f.type === 'counter' ? `${f.name}_total` : f.name,
      type: f.type,
      help: f.help,
    }));
    const onThisDatabase = documented.filter(
      (d) => h.databaseUrl !== null || !POOL_GAUGES.includes(d.name as string),
    );
    const byName = (a: { name?: string }, b: { name?: string }) =>
      (a.name as string).localeCompare(b.name as string);
    expect(exported.sort(byName)).toEqual(onThisDatabase.sort(byName));
    // Each alert of the starter list reads names of the table (a histogram by its series).
    const alerts = doc.slice(
      doc.indexOf('### Alerts'),
      doc.indexOf('\n## ', doc.indexOf('### Alerts')),
    );
    const rules = /```yaml\n([\s\S]*?)```/.exec(alerts)?.[1] ?? '';
    const read = new Set(
      [...rules.matchAll(/arbiter_[a-z0-9_]+/g)].map((n) =>
        n[0].replace(/_(bucket|sum|count)$/, ''),
      ),
    );
    expect(read.size).toBeGreaterThanOrEqual(4);
    const names = new Set(documented.map((d) => d.name));
    expect([...read].filter((name) => !names.has(name))).toEqual([]);
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
