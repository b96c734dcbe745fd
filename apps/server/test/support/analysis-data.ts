import type { MetricDefinition } from '../../src/schemas/experiment-config.ts';
import type { Harness } from './harness.ts';

/** A primary metric of `kind` with its usual test (two-proportion for conversion, else Welch). */
export function metricDefinition(
  name: string,
  kind: string,
  extra: Partial<MetricDefinition> = {},
): MetricDefinition {
  return {
    name,
    kind,
    category: 'primary',
    method_default: kind === 'conversion' ? 'two_proportion_z' : 'welch_t',
    metric_version: 1,
    shared_org_wide: false,
    ...extra,
  } as MetricDefinition;
}

/** A seeded generator so every run of the analysis tests sees the same data. */
export function seeded(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const normal = (mean: number, sd: number) => {
    const u = Math.max(next(), 1e-12);
    return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
  };
  return { next, normal };
}

/** Sends events through the real ingest path in batches and folds them into the aggregates. */
export async function ingestAll(h: Harness, key: string, events: object[]): Promise<void> {
  for (let i = 0; i < events.length; i += 1000) {
    const res = await h.ingest(key, {
      method: 'POST',
      url: '/v1/events',
      payload: { events: events.slice(i, i + 1000) },
    });
    if (res.statusCode !== 202 || res.json().rejected.length > 0)
      throw new Error(`ingest failed: ${res.body.slice(0, 500)}`);
  }
  await h.ctx.worker.foldAll();
}

/** Sends history older than the live path takes through the import route, and folds it. */
export async function importAll(h: Harness, key: string, events: object[]): Promise<void> {
  for (let i = 0; i < events.length; i += 1000) {
    const res = await h.ingest(key, {
      method: 'POST',
      url: '/v1/events/import',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(events.slice(i, i + 1000)),
    });
    if (res.statusCode !== 200 || res.json().errors.length > 0)
      throw new Error(`import failed: ${res.body.slice(0, 500)}`);
  }
  await h.ctx.worker.foldAll();
}

export const today = () => new Date().toISOString().slice(0, 10);

/** The nightly run of one day through the platform-owner route, as `arbiter pipeline run` does. */
export async function runNightlyFor(h: Harness, day: string) {
  const res = await h.app.inject({
    method: 'POST',
    url: '/v1/admin/pipeline/run',
    headers: { 'x-arbiter-control': h.ctx.controlToken },
    payload: { day },
  });
  if (res.statusCode !== 200) throw new Error(`pipeline run failed: ${res.body}`);
  return res.json();
}
