/**
 * `GET /v1/config` for an org whose configs come near the org's bound
 * (ARBITER_MAX_ORG_CONFIG_BYTES, 16 MiB of JSON). Every client polls this route, so its cost at
 * the bound is the cost a large org's fleet puts on the server, and on its neighbours.
 *
 * Arbiter: `arbiter serve` as its own process on a fresh PostgreSQL database
 * (startBenchServer). A second org gets experiments of nine variants with 100,000-character
 * prompts (about 0.9 MB of JSON each) until the next one is refused with 413.
 * Baseline (the floor): a bare node:http server in a child process answering the same bytes,
 * serialized once, to the same request. Both answer over loopback to BENCH_LOOPS sequential
 * keep-alive fetch loops, in alternating rounds of BENCH_SECONDS each, so that other work on
 * the machine falls on both. While Arbiter serves the large config, one more loop sends the
 * bench org's `POST /v1/assign`: the neighbour's p99.
 *
 * Run: npx tsx bench/server/config-size.bench.ts
 * Env: BENCH_LOOPS (2), BENCH_SECONDS (5), BENCH_ROUNDS (2).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { experimentConfig } from '../../apps/server/test/support/builders.ts';
import { runCli } from '../../apps/server/test/support/process.ts';
import { cpuSecondsOf, freshPostgres, startBenchServer } from './setup.ts';

const LOOPS = Number(process.env.BENCH_LOOPS ?? 2);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const VARIANTS = 9;

function percentile(sorted: number[], p: number): number {
  return (
    sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN
  );
}

/** An experiment config of about 0.9 MB: nine variants, each with a 100,000-character prompt. */
function largeConfig(name: string) {
  const weights = Array.from({ length: VARIANTS }, (_, i) => (i === 0 ? 12 : 11));
  return experimentConfig({
    name,
    metrics: [],
    allocation: weights.map((weight, i) => ({ variant: `v${i}`, weight })),
    variants: weights.map((_, i) => ({
      key: `v${i}`,
      prompt: `${name} v${i} `.padEnd(100_000, 'You are a careful assistant. '),
    })),
  });
}

/** A second org, filled with large experiments until its bound refuses one; its secret key. */
async function largeOrg(url: string, env: Record<string, string>) {
  const token = runCli(
    ['token', '--email', 'large@example.com', '--org', 'large', '--role', 'admin'],
    env,
  ).stdout;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  let created = 0;
  for (;;) {
    const res = await fetch(`${url}/v1/experiments`, {
      method: 'POST',
      headers,
      body: JSON.stringify(largeConfig(`large-${created}`)),
    });
    if (res.status === 413) break;
    if (res.status !== 201) throw new Error(`experiment: ${res.status} ${await res.text()}`);
    created++;
  }
  const key = await fetch(`${url}/v1/keys`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ scope: 'secret' }),
  });
  return { created, key: ((await key.json()) as { key: string }).key };
}

/** The floor: node:http answering the same bytes, serialized once, in its own process. */
async function startBaseline(body: Buffer): Promise<{ url: string; child: ChildProcess }> {
  const file = join(tmpdir(), `arbiter-config-bench-${process.pid}.json`);
  writeFileSync(file, body);
  const script = `
    const body = require('node:fs').readFileSync(${JSON.stringify(file)});
    const server = require('node:http').createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', etag: '"1"' });
        res.end(body);
      });
    });
    server.keepAliveTimeout = 72000;
    server.listen(0, '127.0.0.1', () => console.log(server.address().port));`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) =>
    child.stdout?.once('data', (d: Buffer) => resolve(d.toString().trim())),
  );
  return { url: `http://127.0.0.1:${port}`, child };
}

/** Sequential loops of one request until the time is up; each answer's time in ms. */
async function loops(seconds: number, count: number, send: () => Promise<Response>) {
  const times: number[] = [];
  const until = performance.now() + seconds * 1000;
  const loop = async () => {
    while (performance.now() < until) {
      const started = performance.now();
      const res = await send();
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`answered ${res.status}`);
      times.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: count }, loop));
  return times;
}

interface Tally {
  times: number[];
  cpu: number;
}

const summary = (label: string, t: Tally, seconds: number) => {
  const s = [...t.times].sort((a, b) => a - b);
  return `${label.padEnd(30)} ${(s.length / seconds).toFixed(1).padStart(7)} req/s   p50 ${percentile(s, 50).toFixed(1)} ms   p99 ${percentile(s, 99).toFixed(1)} ms   server CPU ${((1000 * t.cpu) / s.length).toFixed(1)} ms/req`;
};

function rssMiB(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024;
  } catch {
    return Number.NaN;
  }
}

async function main() {
  const db = await freshPostgres();
  const bench = await startBenchServer(db.url);
  let baseline: Awaited<ReturnType<typeof startBaseline>> | undefined;
  try {
    const url = bench.server.url;
    const large = await largeOrg(url, bench.env);
    const getConfig = (origin: string) => () =>
      fetch(`${origin}/v1/config`, { headers: { 'x-api-key': large.key } });
    const body = Buffer.from(await (await getConfig(url)()).arrayBuffer());
    baseline = await startBaseline(body);
    const assign = () =>
      fetch(`${url}/v1/assign`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': bench.secretKey },
        body: JSON.stringify({ experiment_id: 'bench', user_id: `n-${Math.random()}` }),
      });
    // Warm-up of both, and the neighbour's assign alone (its idle p99).
    await loops(1, LOOPS, getConfig(url));
    await loops(1, LOOPS, getConfig(baseline.url));
    const idleAssign = await loops(SECONDS, 1, assign);

    const arbiter: Tally = { times: [], cpu: 0 };
    const floor: Tally = { times: [], cpu: 0 };
    const busyAssign: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      let cpu = cpuSecondsOf(baseline.child.pid);
      floor.times.push(...(await loops(SECONDS, LOOPS, getConfig(baseline.url))));
      floor.cpu += cpuSecondsOf(baseline.child.pid) - cpu;
      cpu = cpuSecondsOf(bench.server.child.pid);
      const [configs, assigns] = await Promise.all([
        loops(SECONDS, LOOPS, getConfig(url)),
        loops(SECONDS, 1, assign),
      ]);
      arbiter.cpu += cpuSecondsOf(bench.server.child.pid) - cpu;
      arbiter.times.push(...configs);
      busyAssign.push(...assigns);
    }
    const seconds = SECONDS * ROUNDS;
    console.log(
      `GET /v1/config of an org with ${large.created} experiments (${(body.length / 2 ** 20).toFixed(2)} MiB of JSON; the next one was refused with 413), ${LOOPS} sequential keep-alive loops, ${ROUNDS} rounds of ${SECONDS} s per target`,
    );
    console.log(summary('baseline (node:http, bytes)', floor, seconds));
    console.log(summary('Arbiter', arbiter, seconds));
    const rate = (t: Tally) => t.times.length / seconds;
    console.log(`ratio of req/s (Arbiter / baseline): ${(rate(arbiter) / rate(floor)).toFixed(2)}`);
    console.log(
      `Arbiter server RSS after the rounds: ${rssMiB(bench.server.child.pid).toFixed(0)} MiB`,
    );
    const p99 = (t: number[]) =>
      percentile(
        [...t].sort((a, b) => a - b),
        99,
      );
    console.log(
      `neighbour's POST /v1/assign p99: ${p99(idleAssign).toFixed(2)} ms alone, ${p99(busyAssign).toFixed(2)} ms while the large config is served (ratio ${(p99(busyAssign) / p99(idleAssign)).toFixed(1)})`,
    );
  } catch (error) {
    console.error(`server output:\n${bench.server.output().slice(-3000)}`);
    throw error;
  } finally {
    baseline?.child.kill();
    await bench.stop();
    await db.drop();
  }
}

await main();
