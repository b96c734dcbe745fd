import { seeded } from '../../../server/test/support/analysis-data.ts';
import { runCli } from '../../../server/test/support/process.ts';

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
) {
  const { normal } = seeded(seed);
  const ts = new Date().toISOString();
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
