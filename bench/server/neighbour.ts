/**
 * The neighbour probe of the fairness benches: another org's sequential keep-alive
 * `POST /v1/assign` loops, timed while one org's heavy work runs, and the second org that does
 * that work.
 */
import { performance } from 'node:perf_hooks';
import { experimentConfig } from '../../apps/server/test/support/builders.ts';
import { runCli } from '../../apps/server/test/support/process.ts';

/** The p-th percentile (nearest rank) of sorted times; NaN when there are none. */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/** Where the neighbour sends its assigns, and how many loops it runs at once. */
export interface Neighbour {
  url: string;
  key: string;
  experiment: string;
  loops: number;
}

/** The neighbour's assign loops until `until()` says stop; every answer's time in ms, sorted. */
export async function assignLoad(n: Neighbour, until: () => boolean): Promise<Float64Array> {
  const times: number[] = [];
  let user = 0;
  const loop = async () => {
    while (!until()) {
      const started = performance.now();
      const res = await fetch(`${n.url}/v1/assign`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': n.key },
        body: JSON.stringify({ experiment_id: n.experiment, user_id: `n-${user++}` }),
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`assign answered ${res.status}`);
      times.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: n.loops }, loop));
  return Float64Array.from(times).sort();
}

/** The neighbour's assigns for `seconds`. */
export function assignFor(n: Neighbour, seconds: number): Promise<Float64Array> {
  const until = performance.now() + seconds * 1000;
  return assignLoad(n, () => performance.now() > until);
}

/**
 * A second org beside the bench server's own, named `org`: an admin token from the CLI, an
 * experiment named `experiment`, and a new key of `scope`, which it returns.
 */
export async function secondOrg(
  url: string,
  env: Record<string, string>,
  org: { name: string; experiment: string; scope: 'secret' | 'publishable' },
): Promise<string> {
  const token = runCli(
    ['token', '--email', `${org.name}@example.com`, '--org', org.name, '--role', 'admin'],
    env,
  ).stdout;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const created = await fetch(`${url}/v1/experiments`, {
    method: 'POST',
    headers,
    body: JSON.stringify(experimentConfig({ name: org.experiment, metrics: [] })),
  });
  if (created.status !== 201) throw new Error(`experiment: ${await created.text()}`);
  const key = await fetch(`${url}/v1/keys`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ scope: org.scope }),
  });
  return ((await key.json()) as { key: string }).key;
}

/**
 * The start of a fairness bench: the second org `org` that does the heavy work (its key), and the
 * bench org beside it as the neighbour, warmed up (keys and configs cached, JIT warm) and then
 * timed alone for `baselineSeconds` (`idle`).
 */
export async function besideSecondOrg(
  bench: { server: { url: string }; env: Record<string, string>; secretKey: string },
  loops: number,
  baselineSeconds: number,
  org: { name: string; experiment: string; scope: 'secret' | 'publishable' },
): Promise<{ key: string; neighbour: Neighbour; idle: Float64Array }> {
  const url = bench.server.url;
  const key = await secondOrg(url, bench.env, org);
  const neighbour = { url, key: bench.secretKey, experiment: 'bench', loops };
  await assignFor(neighbour, 1);
  const idle = await assignFor(neighbour, baselineSeconds);
  return { key, neighbour, idle };
}

/** One phase's line: how many assigns, and their p50, p99 and max. */
export function latencyLine(label: string, t: Float64Array, width: number): string {
  const ms = (p: number) => `${percentile(t, p).toFixed(2)} ms`;
  return `${label.padEnd(width)} ${String(t.length).padStart(6)} assigns   p50 ${ms(50)}   p99 ${ms(99)}   max ${ms(100)}`;
}
