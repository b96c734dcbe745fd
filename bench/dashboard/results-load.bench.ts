/**
 * First load of the results page of a 3-arm, 6-metric experiment on the embedded server,
 * measured in Debian's Chromium: navigation start → all six forest plots drawn, with a cold
 * browser cache each time. Baselines from the same server in the same run: a small static HTML
 * page (/problems/<slug>) and the results API response alone (fetch from that page).
 *
 *   npx tsx bench/dashboard/results-load.bench.ts      knobs: BENCH_ROUNDS (10)
 */
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
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
  const id = await createExperiment(api, 'six-metrics', { control: 33.3, fast: 33.3, slim: 33.3 }, [
    metric('latency', 'latency', 'welch_t'),
    metric('tokens', 'tokens', 'mann_whitney'),
    metric('cost', 'cost', 'welch_t'),
    metric('errors', 'error_rate', 'welch_t'),
    metric('checkout', 'conversion', 'two_proportion_z'),
    metric('revenue', 'revenue', 'welch_t'),
  ]);
  const users = { control: 400, fast: 400, slim: 400 };
  const events = armEvents(id, users, { fast: -60 });
  const ts = new Date().toISOString();
  for (const [variant, n] of Object.entries(users))
    for (let u = 0; u < n; u += 4) {
      const base = { experiment_id: id, user_id: `${variant}-${u}`, timestamp: ts, variant };
      events.push({
        ...base,
        event_id: `c-${variant}-${u}`,
        type: 'business_event',
        business_metric: 'checkout',
        value: 1,
      });
      events.push({
        ...base,
        event_id: `r-${variant}-${u}`,
        type: 'business_event',
        business_metric: 'revenue',
        value: 10 + (u % 7),
      });
    }
  await ingest(server.url, key, events);
  await waitForExposures(api, id, 1200);
  runPipeline(dataDir, new Date().toISOString().slice(0, 10));
  const results = await call(api, 'GET', `/v1/experiments/${id}/results`);
  const pairs = Object.keys(results.results).length;
  if (pairs !== 12) throw new Error(`expected 12 metric × treatment pairs, got ${pairs}`);

  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox'],
  });
  const page = { results: [] as number[], blank: [] as number[], api: [] as number[] };
  const load = loadavg()[0] ?? 0;
  for (let round = 0; round < ROUNDS + 1; round++) {
    // A fresh context each time: cold HTTP cache, as a first visit.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript((t) => sessionStorage.setItem('arbiter.session', t), token);
    const tab = await context.newPage();
    await tab.goto(`${server.url}/problems/not-found`, { waitUntil: 'load' });
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
      { url: `${server.url}/v1/experiments/${id}/results`, t: token },
    );
    await tab.goto(`${server.url}/experiments/${id}/results`, { waitUntil: 'commit' });
    await tab.waitForFunction(
      () => document.querySelectorAll('[data-testid^="forest-"] .recharts-surface').length >= 6,
      undefined,
      { polling: 'raf', timeout: 30_000 },
    );
    const resultsMs = await tab.evaluate(() => performance.now());
    if (process.env.BENCH_BREAKDOWN)
      console.log(
        await tab.evaluate(() =>
          performance
            .getEntriesByType('resource')
            .map(
              (e) =>
                `${e.name.replace(location.origin, '').slice(0, 40)} ${e.startTime.toFixed(0)}→${(e as PerformanceResourceTiming).responseEnd.toFixed(0)}`,
            )
            .join(' | '),
        ),
        resultsMs.toFixed(0),
      );
    await context.close();
    if (round === 0) continue; // the first round warms the server's caches and JIT
    page.blank.push(blank);
    page.api.push(apiMs);
    page.results.push(resultsMs);
  }
  await browser.close();
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
} finally {
  server.child.kill('SIGTERM');
  await server.exited;
}
