/**
 * First load of the results page of a 3-arm, 6-metric experiment on the embedded server,
 * measured in Debian's Chromium: navigation start → all six forest plots drawn, with a cold
 * browser cache each time. Baselines from the same server in the same run: a small static HTML
 * page (/problems/<slug>) and the results API response alone (fetch from that page).
 *
 * Then a scale curve: the page at 1×, 4× and 16× the metric × treatment pairs it draws (3 arms ×
 * 6 metrics, 5 × 12, 9 × 24; 400 users per arm), the three experiments on the same server, their
 * rounds interleaved, each round with its own two baselines.
 *
 *   npx tsx bench/dashboard/results-load.bench.ts
 *   knobs: BENCH_ROUNDS (10), BENCH_SCALE_ROUNDS (5) per step, BENCH_SCALE=0 skips the curve
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import {
  armEvents,
  call,
  createExperiment,
  devToken,
  ingest,
  metric,
  runPipeline,
  waitForExposures,
} from '../../apps/dashboard/test/support/seed.ts';
import { startServer } from '../../apps/server/test/support/process.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const SCALE_ROUNDS = Number(process.env.BENCH_SCALE_ROUNDS ?? 5);
const DIST = new URL('../../apps/dashboard/dist/assets/', import.meta.url).pathname;

function bundleSize() {
  let raw = 0;
  let gzip = 0;
  for (const f of readdirSync(DIST)) {
    const bytes = readFileSync(join(DIST, f));
    raw += statSync(join(DIST, f)).size;
    gzip += gzipSync(bytes).length;
  }
  return { raw, gzip };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};

type Browser = Awaited<ReturnType<typeof chromium.launch>>;
type Seeded = { id: string; metrics: number; pairs: number };

/** Model-call metrics every experiment has; business metrics come in conversion/revenue pairs. */
const MODEL_METRICS = [
  metric('latency', 'latency', 'welch_t'),
  metric('tokens', 'tokens', 'mann_whitney'),
  metric('cost', 'cost', 'welch_t'),
  metric('errors', 'error_rate', 'welch_t'),
];

function businessNames(pairs: number) {
  // The first pair keeps the names of the original benchmark's experiment.
  return Array.from({ length: pairs }, (_, j) =>
    j === 0 ? ['checkout', 'revenue'] : [`checkout-${j}`, `revenue-${j}`],
  ).flat();
}

/**
 * An experiment with `treatments` + 1 arms of 400 users and 4 + 2 × `businessPairs` metrics:
 * exposures and model calls for every user, one event per business metric for every 4th user.
 */
async function seedExperiment(
  api: { base: string; token: string },
  key: string,
  name: string,
  treatments: number,
  businessPairs: number,
): Promise<Seeded> {
  const variants = ['control', ...(treatments === 2 ? ['fast', 'slim'] : [])];
  for (let t = 1; variants.length < treatments + 1; t++) variants.push(`t${t}`);
  const weight = Math.floor(1000 / variants.length) / 10;
  const names = businessNames(businessPairs);
  const metrics = [
    ...MODEL_METRICS,
    ...names.map((m, i) =>
      i % 2 === 0 ? metric(m, 'conversion', 'two_proportion_z') : metric(m, 'revenue', 'welch_t'),
    ),
  ];
  const id = await createExperiment(
    api,
    name,
    Object.fromEntries(variants.map((v) => [v, weight])),
    metrics,
  );
  const users = Object.fromEntries(variants.map((v) => [v, 400]));
  const events = armEvents(id, users, { [variants[1] as string]: -60 });
  const ts = new Date().toISOString();
  for (const variant of variants)
    for (let u = 0; u < 400; u += 4) {
      const base = { experiment_id: id, user_id: `${variant}-${u}`, timestamp: ts, variant };
      names.forEach((m, i) => {
        const value = i % 2 === 0 ? 1 : 10 + (u % 7);
        const event_id = `${m}-${id}-${variant}-${u}`;
        events.push({ ...base, event_id, type: 'business_event', business_metric: m, value });
      });
    }
  await ingest(api.base, key, events);
  await waitForExposures(api, id, 400 * variants.length);
  return { id, metrics: metrics.length, pairs: metrics.length * treatments };
}

async function checkPairs(api: { base: string; token: string }, seeded: Seeded) {
  const results = await call(api, 'GET', `/v1/experiments/${seeded.id}/results`);
  const pairs = Object.keys(results.results).length;
  if (pairs !== seeded.pairs)
    throw new Error(`expected ${seeded.pairs} metric × treatment pairs, got ${pairs}`);
}

/** One cold visit: the static page, the API alone from it, then the results page drawn. */
async function measureRound(browser: Browser, url: string, token: string, seeded: Seeded) {
  // A fresh context each time: cold HTTP cache, as a first visit.
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript((t) => sessionStorage.setItem('arbiter.session', t), token);
  const tab = await context.newPage();
  await tab.goto(`${url}/problems/not-found`, { waitUntil: 'load' });
  const blank = await tab.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
    return nav.loadEventEnd - nav.startTime;
  });
  const apiMs = await tab.evaluate(
    async ({ url, t }) => {
      const start = performance.now();
      const res = await fetch(url, { headers: { authorization: `Bearer ${t}` } });
      await res.json();
      return performance.now() - start;
    },
    { url: `${url}/v1/experiments/${seeded.id}/results`, t: token },
  );
  await tab.goto(`${url}/experiments/${seeded.id}/results`, { waitUntil: 'commit' });
  await tab.waitForFunction(
    (n) => document.querySelectorAll('[data-testid^="forest-"] .recharts-surface').length >= n,
    seeded.metrics,
    { polling: 'raf', timeout: 60_000 },
  );
  const resultsMs = await tab.evaluate(() => performance.now());
  if (process.env.BENCH_BREAKDOWN) console.log(await resourceBreakdown(tab), resultsMs.toFixed(0));
  await context.close();
  return { blank, api: apiMs, results: resultsMs };
}

function resourceBreakdown(tab: Awaited<ReturnType<Browser['newPage']>>) {
  return tab.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .map(
        (e) =>
          `${e.name.replace(location.origin, '').slice(0, 40)} ${e.startTime.toFixed(0)}→${(e as PerformanceResourceTiming).responseEnd.toFixed(0)}`,
      )
      .join(' | '),
  );
}

type Samples = { results: number[]; blank: number[]; api: number[] };
const samples = (): Samples => ({ results: [], blank: [], api: [] });
function keep(into: Samples, round: { blank: number; api: number; results: number }) {
  into.blank.push(round.blank);
  into.api.push(round.api);
  into.results.push(round.results);
}

/** 1×, 4×, 16× the pairs drawn; rounds interleaved so the machine's noise falls on every step. */
async function scaleCurve(
  browser: Browser,
  url: string,
  token: string,
  steps: { factor: number; seeded: Seeded }[],
) {
  const bySteps = steps.map(() => samples());
  const load = loadavg()[0] ?? 0;
  for (let round = 0; round < SCALE_ROUNDS + 1; round++)
    for (const [i, step] of steps.entries()) {
      const measured = await measureRound(browser, url, token, step.seeded);
      if (round > 0) keep(bySteps[i] as Samples, measured); // round 0 warms each page
    }
  console.log(
    `\nscale curve (load average (1 min) at start ${load.toFixed(2)}; ${SCALE_ROUNDS} rounds per step, interleaved):`,
  );
  console.log(
    '| pairs drawn (arms × metrics) | results page ms | static page ms | API alone ms | page / static | page / API | page / 1× page |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  const first = median(bySteps[0]?.results ?? []);
  for (const [i, step] of steps.entries()) {
    const s = bySteps[i] as Samples;
    const [r, b, a] = [median(s.results), median(s.blank), median(s.api)];
    const arms = step.seeded.pairs / step.seeded.metrics + 1;
    console.log(
      `| ${step.seeded.pairs} (${step.factor}×: ${arms} × ${step.seeded.metrics}) | ${r.toFixed(0)} | ${b.toFixed(0)} | ${a.toFixed(0)} | ${(r / b).toFixed(1)} | ${(r / a).toFixed(1)} | ${(r / first).toFixed(2)} |`,
    );
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'arbiter-bench-dashboard-'));
const server = await startServer({
  ARBITER_DATA_DIR: dataDir,
  ARBITER_SESSION_JWKS_URL: '',
  ARBITER_DATABASE_URL: '',
  ARBITER_SECRET_KEY: '',
  ARBITER_SCHEDULER: 'false',
});
try {
  const token = await devToken(server.url, 'bench');
  const api = { base: server.url, token };
  const key = (await call(api, 'POST', '/v1/keys', { scope: 'secret' })).key as string;
  const main = await seedExperiment(api, key, 'six-metrics', 2, 1);
  const curve =
    process.env.BENCH_SCALE === '0'
      ? []
      : [
          { factor: 4, seeded: await seedExperiment(api, key, 'scale-4x', 4, 4) },
          { factor: 16, seeded: await seedExperiment(api, key, 'scale-16x', 8, 10) },
        ];
  runPipeline(dataDir, new Date().toISOString().slice(0, 10));
  for (const seeded of [main, ...curve.map((s) => s.seeded)]) await checkPairs(api, seeded);

  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox'],
  });
  const page = samples();
  const load = loadavg()[0] ?? 0;
  for (let round = 0; round < ROUNDS + 1; round++) {
    const measured = await measureRound(browser, server.url, token, main);
    if (round === 0) continue; // the first round warms the server's caches and JIT
    keep(page, measured);
  }
  const size = bundleSize();
  const r = median(page.results);
  console.log(`load average (1 min) at start: ${load.toFixed(2)}; rounds: ${ROUNDS}`);
  console.log(
    `results page, navigation → 6 forest plots drawn: median ${r.toFixed(0)} ms (min ${Math.min(...page.results).toFixed(0)}, max ${Math.max(...page.results).toFixed(0)})`,
  );
  console.log(
    `baseline static page (/problems/not-found) load: median ${median(page.blank).toFixed(0)} ms → ratio ${(r / median(page.blank)).toFixed(1)}×`,
  );
  console.log(
    `baseline results API response alone: median ${median(page.api).toFixed(0)} ms → ratio ${(r / median(page.api)).toFixed(1)}×`,
  );
  console.log(
    `bundle (dist/assets): ${(size.raw / 1024).toFixed(0)} KiB raw, ${(size.gzip / 1024).toFixed(0)} KiB gzip`,
  );
  if (curve.length > 0)
    await scaleCurve(browser, server.url, token, [{ factor: 1, seeded: main }, ...curve]);
  await browser.close();
} finally {
  server.child.kill('SIGTERM');
  await server.exited;
  rmSync(dataDir, { recursive: true, force: true });
}
