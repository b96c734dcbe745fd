import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { seeded } from '../../../server/test/support/analysis-data.ts';
import { runCli } from '../../../server/test/support/process.ts';

/**
 * What the browser tests stand on, made through the API. Each test seeds its own org (a fresh
 * name per call), so no test relies on what another one made and any one runs alone or in any
 * order against the file's shared server.
 */

export const metric = (name: string, kind: string, method: string) => ({
  name,
  kind,
  category: 'primary',
  method_default: method,
  metric_version: 1,
  shared_org_wide: false,
});

/** Creates an experiment through the API: arms as {variant: weight}, the first is control. */
export async function createExperiment(
  api: Api,
  name: string,
  arms: Record<string, number>,
  metrics: object[],
): Promise<string> {
  const allocation = Object.entries(arms).map(([variant, weight]) => ({ variant, weight }));
  const body = { name, salt: `${name}-salt`, bucket_count: 999, allocation, metrics };
  return (await call(api, 'POST', '/v1/experiments', body)).id;
}

export interface Api {
  base: string;
  token: string;
}

export async function call(api: Api, method: string, path: string, body?: unknown) {
  const res = await fetch(`${api.base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${api.token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

export async function devToken(
  base: string,
  org: string,
  email = 'analyst@example.com',
  role: 'member' | 'admin' | 'owner' = 'admin',
) {
  const res = await fetch(`${base}/v1/dev/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, org, role }),
  });
  return ((await res.json()) as { token: string }).token;
}

/**
 * Users per arm with explicit variants: latency differs by `latencyShift` in treatments (a real
 * effect), tokens alike everywhere (no effect), as the server's analysis tests do.
 */
export function armEvents(
  experimentId: string,
  users: Record<string, number>,
  latencyShift: Record<string, number>,
  seed = 7,
  ts = new Date().toISOString(),
) {
  const { normal } = seeded(seed);
  const events: object[] = [];
  for (const [variant, n] of Object.entries(users)) {
    for (let u = 0; u < n; u++) {
      const user = `${variant}-${u}`;
      const base = { experiment_id: experimentId, user_id: user, timestamp: ts, variant };
      events.push({ ...base, event_id: `x-${experimentId}-${user}`, type: 'exposure' });
      events.push({
        ...base,
        event_id: `m-${experimentId}-${user}`,
        type: 'model_call',
        latency_ms: Math.max(1, normal(500 + (latencyShift[variant] ?? 0), 60)),
        input_tokens: Math.max(0, Math.round(normal(300, 80))),
        output_tokens: 0,
        cost_usd: 0.001,
        model: 'm',
      });
    }
  }
  return events;
}

/**
 * The UTC day a run must cover to count `events`: the latest of their timestamps. Tests take
 * the day from the events they sent, never from the clock when the file was loaded, so a
 * suite that runs across midnight analyses the day its experiments and events are on.
 */
export function dayOfEvents(events: object[]): string {
  const stamps = events.map((e) => String((e as { timestamp: string }).timestamp));
  return stamps.sort().at(-1)?.slice(0, 10) ?? '';
}

export async function ingest(base: string, key: string, events: object[]) {
  for (let i = 0; i < events.length; i += 1000) {
    const res = await fetch(`${base}/v1/events`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ events: events.slice(i, i + 1000) }),
    });
    const ack = (await res.json()) as { rejected?: unknown[] };
    if (res.status !== 202 || (ack.rejected?.length ?? 0) > 0)
      throw new Error(`ingest: ${res.status} ${JSON.stringify(ack).slice(0, 400)}`);
  }
}

/** The ingest worker folds events asynchronously: wait until the live counts show them all. */
export async function waitForExposures(api: Api, id: string, total: number) {
  for (;;) {
    const live = await call(api, 'GET', `/v1/experiments/${id}/live`);
    const seen = Object.values(live.arms as Record<string, { exposures: number }>).reduce(
      (n, a) => n + a.exposures,
      0,
    );
    if (seen >= total) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** `arbiter pipeline run --day D`: on the embedded database it asks the running server. */
export function runPipeline(dataDir: string, day: string) {
  const r = runCli(['pipeline', 'run', '--day', day], { ARBITER_DATA_DIR: dataDir });
  if (r.code !== 0) throw new Error(`pipeline run failed: ${r.stderr}`);
  return r.stdout;
}

/** An org name no other test of the run uses: the prefix and 8 random hex digits. */
export function uniqueOrg(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

/** A new org with an admin (the dev session creates both), and the admin's API access. */
export async function newOrg(
  base: string,
  prefix: string,
  email = 'analyst@example.com',
): Promise<{ org: string; api: Api }> {
  const org = uniqueOrg(prefix);
  return { org, api: { base, token: await devToken(base, org, email) } };
}

/** Signs `page` in with the development form, as a person would, and waits for the list. */
export async function signIn(
  page: Page,
  base: string,
  who: { email: string; org: string; role: 'member' | 'admin' | 'owner' },
) {
  await page.goto(`${base}/experiments`);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Organization').fill(who.org);
  await page.getByLabel('Role').selectOption(who.role);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Experiments', level: 1 }).waitFor();
}

/** The org's secret key, created (or rotated) through the API. */
export async function secretKey(api: Api): Promise<string> {
  return (await call(api, 'POST', '/v1/keys', { scope: 'secret' })).key as string;
}

/**
 * `checkout-copy` as the dashboard's form creates it: 50/50 over 10,000 buckets, a prompt per
 * arm, variables on treatment and the latency metric.
 */
export async function createCheckoutCopy(api: Api): Promise<string> {
  const body = {
    name: 'checkout-copy',
    salt: 'checkout-copy-salt',
    bucket_count: 10000,
    allocation: [
      { variant: 'control', weight: 50 },
      { variant: 'treatment', weight: 50 },
    ],
    variants: [
      { key: 'control', prompt: 'You are a helpful checkout assistant.' },
      {
        key: 'treatment',
        prompt: 'You are a concise checkout assistant.',
        variables: { temperature: 0.2 },
      },
    ],
    metrics: [metric('latency', 'latency', 'welch_t')],
  };
  return (await call(api, 'POST', '/v1/experiments', body)).id;
}

/** Version 2 of an experiment: control's weight down to 40 % (its retired buckets stay out). */
export async function shrinkControl(api: Api, id: string) {
  const current = await call(api, 'GET', `/v1/experiments/${id}`);
  const allocation = (current.allocation as Array<{ variant: string; weight: number }>).map((a) =>
    a.variant === 'control' ? { ...a, weight: 40 } : a,
  );
  const { name, salt, bucket_count, variants, metrics } = current;
  await call(api, 'PUT', `/v1/experiments/${id}`, {
    name,
    salt,
    bucket_count,
    allocation,
    variants,
    metrics,
  });
}

export interface AnalysedOrg {
  org: string;
  api: Api;
  key: string;
  ids: { collecting: string; results: string; srm: string };
  /** What `arbiter pipeline run` printed. */
  pipeline: string;
  /** The UTC day the run covers: the day of the events sent. */
  day: string;
}

/**
 * An org whose nightly run of the day its events are stamped is done: `three-arms` (fast is 80 ms quicker: significant;
 * tokens alike everywhere: not), `broken-split` (420 vs 220 users on 50/50: the SRM gate halts
 * it) and `checkout-copy` at version 2 with 30 users per arm (Collecting). The events go
 * through the ingest API, and the run starts only once the worker has folded them all.
 */
export async function seedAnalysedOrg(base: string, dataDir: string): Promise<AnalysedOrg> {
  const { org, api } = await newOrg(base, 'acme-e2e');
  const key = await secretKey(api);
  const collecting = await createCheckoutCopy(api);
  await shrinkControl(api, collecting);
  const metrics = [metric('latency', 'latency', 'welch_t'), metric('tokens', 'tokens', 'welch_t')];
  const thirds = { control: 33.3, fast: 33.3, slim: 33.3 };
  const results = await createExperiment(api, 'three-arms', thirds, metrics);
  const srm = await createExperiment(api, 'broken-split', { control: 50, treatment: 50 }, metrics);
  const ts = new Date().toISOString();
  const events = [
    ...armEvents(results, { control: 260, fast: 260, slim: 260 }, { fast: -80 }, 7, ts),
    ...armEvents(srm, { control: 420, treatment: 220 }, {}, 7, ts),
    ...armEvents(collecting, { control: 30, treatment: 30 }, {}, 7, ts),
  ];
  await ingest(base, key, events);
  await waitForExposures(api, results, 780);
  await waitForExposures(api, srm, 640);
  await waitForExposures(api, collecting, 60);
  const day = dayOfEvents(events);
  const pipeline = runPipeline(dataDir, day);
  return { org, api, key, ids: { collecting, results, srm }, pipeline, day };
}
