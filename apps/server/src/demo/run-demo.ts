import { bucketOf, variantForBucket } from '@arbiter/bucketing';
import type { Static } from 'typebox';
import type { ResultsSchema } from '../analysis/results/results-schema.ts';
import { type Config, isDevelopmentSessions } from '../config.ts';
import { readControlFile } from '../control-file.ts';
import { mintDevToken } from '../domain/identity/mint-dev-token.ts';
import { systemClock } from '../kernel/ports.ts';
import { DAY_MS, utcDay } from '../kernel/utc-day.ts';
import { requestPipelineRun } from '../pipeline-request.ts';
import { DemoApi, DemoError } from './demo-api.ts';
import {
  CHECKOUT,
  DEMO_EMAIL,
  DEMO_ORG,
  type DemoExperimentConfig,
  ONBOARDING,
  type SimulatedUser,
  simulateUser,
} from './demo-experiments.ts';
import { describeOfflineRun, ensureOfflineRun, type OfflineRunBody } from './demo-offline.ts';

type Results = Static<typeof ResultsSchema>;

const BATCH = 1000;
/** How long the demo waits for the server to fold the events it sent into the aggregates. */
const FOLD_WAIT_MS = 120_000;

type ExperimentBody = DemoExperimentConfig & {
  id: string;
  created_at: string;
  bucket_ranges: { variant: string; start: number; end: number }[];
};

function isLoopbackUrl(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The running server: the one that left its control file in the data dir, else the port. */
export function demoServerUrl(config: Config, explicit: string | undefined): string {
  if (explicit !== undefined) return explicit.replace(/\/+$/, '');
  const running = config.databaseUrl === null ? readControlFile(config.dataDir) : null;
  return running ? running.url : `http://127.0.0.1:${config.port}`;
}

async function ensureExperiment(
  api: DemoApi,
  config: DemoExperimentConfig,
): Promise<ExperimentBody> {
  const found = await api.dashboard('GET', `/v1/experiments/${config.name}`);
  if (found.status === 200) return found.body;
  return DemoApi.expect(
    `creating ${config.name}`,
    await api.dashboard('POST', '/v1/experiments', config),
    201,
  );
}

/** The active key of a scope, revealed; made when the org has none yet. */
async function ensureKey(api: DemoApi, scope: 'publishable' | 'secret'): Promise<string> {
  const revealed = await api.dashboard('GET', `/v1/keys/${scope}/reveal`);
  if (revealed.status === 200) return revealed.body.key;
  return DemoApi.expect(
    `making a ${scope} key`,
    await api.dashboard('POST', '/v1/keys', { scope }),
    201,
  ).key;
}

function variantOf(experiment: ExperimentBody, userId: string): string {
  const bucket = bucketOf(experiment.salt, userId, experiment.bucket_count);
  return variantForBucket(experiment.bucket_ranges, bucket) ?? 'control';
}

interface Traffic {
  live: object[];
  conversions: object[];
  users: number;
}

/**
 * Today's traffic of one experiment: an exposure and a model call per user, spread from the
 * start of the UTC day to now, and the conversions. Event ids depend only on the user and the
 * day; a re-run the same day finds the day's traffic folded and sends none (its timestamps,
 * spread to a later now, would make each a conflict), while a run on a later day adds that
 * day's traffic.
 */
function trafficOf(experiment: ExperimentBody, users: number, now: Date): Traffic {
  const day = utcDay(now);
  const dayStart = Date.parse(`${day}T00:00:00.000Z`);
  const span = Math.max(1, now.getTime() - 60_000 - dayStart);
  const live: object[] = [];
  const conversions: object[] = [];
  for (let i = 0; i < users; i++) {
    const userId = `${experiment.name}-user-${String(i).padStart(5, '0')}`;
    const variant = variantOf(experiment, userId);
    const sim: SimulatedUser = simulateUser(experiment.name, userId, variant);
    const at = new Date(dayStart + Math.floor((span * i) / users));
    const base = { experiment_id: experiment.name, user_id: userId, variant };
    const id = `${userId}-${day}`;
    live.push(
      { ...base, event_id: `${id}-exposure`, type: 'exposure', timestamp: at.toISOString() },
      {
        experiment_id: experiment.name,
        user_id: userId,
        event_id: `${id}-call`,
        type: 'model_call',
        timestamp: new Date(at.getTime() + 1000).toISOString(),
        model: 'gpt-4o-mini',
        latency_ms: sim.latencyMs,
        input_tokens: sim.inputTokens,
        output_tokens: sim.outputTokens,
      },
    );
    if (sim.converted)
      conversions.push({
        ...base,
        event_id: `${id}-conversion`,
        type: 'business_event',
        business_metric: experiment.metrics[0]?.name,
        value: 1,
        timestamp: new Date(at.getTime() + 30_000).toISOString(),
      });
  }
  return { live, conversions, users };
}

/** Conversions through the bulk import (secret key), as a warehouse export would send them. */
async function importConversions(api: DemoApi, secret: string, rows: object[]): Promise<void> {
  if (rows.length === 0) return;
  const ndjson = rows.map((r) => JSON.stringify(r)).join('\n');
  const body = DemoApi.expect(
    'importing conversions',
    await api.ingest(secret, 'POST', '/v1/events/import', ndjson, 'application/x-ndjson'),
    200,
  );
  if (body.errors.length > 0)
    throw new DemoError(`the import refused rows: ${JSON.stringify(body.errors.slice(0, 3))}`);
}

/** Exposures and model calls through POST /v1/events, as the client libraries send them. */
async function sendLive(api: DemoApi, key: string, events: object[]): Promise<void> {
  for (let i = 0; i < events.length; i += BATCH) {
    const body = DemoApi.expect(
      'sending events',
      await api.ingest(key, 'POST', '/v1/events', { events: events.slice(i, i + BATCH) }),
      202,
    );
    if (body.rejected.length > 0)
      throw new DemoError(
        `the server rejected events: ${JSON.stringify(body.rejected.slice(0, 3))}`,
      );
  }
}

/** Waits until today's aggregates hold every exposure sent (the fold runs in the background). */
async function waitForFold(
  api: DemoApi,
  name: string,
  day: string,
  exposures: number,
): Promise<void> {
  const until = Date.now() + FOLD_WAIT_MS;
  for (;;) {
    const seen = await foldedExposures(api, name, day);
    if (seen >= exposures) return;
    if (Date.now() > until)
      throw new DemoError(
        `the server folded ${seen} of ${exposures} exposures of ${name} in ${FOLD_WAIT_MS / 1000} s; is its ingest worker on (ARBITER_INGEST_WORKER)?`,
      );
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The experiment's exposures of the day that the aggregates hold. */
async function foldedExposures(api: DemoApi, name: string, day: string): Promise<number> {
  const series = DemoApi.expect(
    `reading ${name} traffic`,
    await api.dashboard('GET', `/v1/experiments/${name}/traffic`),
    200,
  );
  const today = series.days.find((d: { day: string }) => d.day === day);
  return Object.values((today?.exposures ?? {}) as Record<string, number>).reduce(
    (sum, n) => sum + n,
    0,
  );
}

/**
 * Stops the experiment shipping the treatment its results recommend, once: true when it stopped
 * it now, false when it was stopped already or its results recommend no ship.
 */
async function shipRecommended(api: DemoApi, experiment: ExperimentBody): Promise<boolean> {
  const current = DemoApi.expect(
    `reading ${experiment.name}`,
    await api.dashboard('GET', `/v1/experiments/${experiment.name}`),
    200,
  );
  if (current.status !== 'running') return false;
  const results = await api.dashboard('GET', `/v1/experiments/${experiment.name}/results`);
  const decision = results.status === 200 ? (results.body as Results).decision : null;
  if (decision?.recommendation !== 'ship' || decision.treatment === null) return false;
  DemoApi.expect(
    `stopping ${experiment.name}`,
    await api.dashboard('POST', `/v1/experiments/${experiment.name}/stop`, {
      conclusion: 'ship',
      variant: decision.treatment,
      reason: 'The results recommend it: the demo ships the winner.',
    }),
    200,
  );
  return true;
}

/** The experiment's state: running, or what a stop serves to every user since when. */
async function statusLine(api: DemoApi, name: string): Promise<string> {
  const found = DemoApi.expect(
    `reading ${name}`,
    await api.dashboard('GET', `/v1/experiments/${name}`),
    200,
  );
  if (found.stop === undefined || found.stop === null) return `  ${name}: ${found.status}`;
  return `  ${name}: ${found.status} (${found.stop.conclusion}), serving ${found.stop.served_variant} to every user since ${found.stop.stopped_at}`;
}

function daysFrom(firstDay: string, now: Date): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${firstDay}T00:00:00Z`); t <= now.getTime(); t += DAY_MS)
    days.push(utcDay(new Date(t)));
  return days;
}

function describeResults(experiment: ExperimentBody, results: Results): string[] {
  const name = experiment.name;
  const order = (key: string) =>
    experiment.metrics.findIndex((m) => m.name === key.slice(0, key.indexOf('::')));
  const lines = [
    `  ${name}: results for ${results.computed_for}; SRM check p = ${results.srm.p_value?.toFixed(3)} (${results.srm.halted ? 'halted' : 'passed'})`,
  ];
  const entries = Object.entries(results.results).sort(([a], [b]) => order(a) - order(b));
  for (const [key, r] of entries) {
    const verdict = r.significant ? 'SIGNIFICANT' : 'not significant';
    lines.push(
      `    ${key.padEnd(20)} effect ${r.effect.toPrecision(3)} [${r.ci_low.toPrecision(3)}, ${r.ci_high.toPrecision(3)}]  p(FDR) ${r.p_value_fdr.toPrecision(2)}  ${verdict}`,
    );
  }
  return lines;
}

export interface DemoOptions {
  url?: string;
  /** Where the sentences go; stdout in the command. */
  write(line: string): void;
}

/** The demo admin's session against a local server that answers. */
async function signIn(config: Config, baseUrl: string): Promise<DemoApi> {
  if (!isLoopbackUrl(baseUrl))
    throw new DemoError(`the demo only runs against a server on this machine, not ${baseUrl}`);
  const token = await mintDevToken({
    dataDir: config.dataDir,
    issuer: config.sessionIssuer,
    email: DEMO_EMAIL,
    org: DEMO_ORG,
    role: 'admin',
    name: 'Demo admin',
  });
  const api = new DemoApi(baseUrl, token);
  const who = await api.dashboard('GET', '/v1/whoami').catch(() => null);
  if (who === null)
    throw new DemoError(
      `no Arbiter answers at ${baseUrl}; start it first with \`npm start\` (in another terminal)`,
    );
  DemoApi.expect('signing in', who, 200);
  return api;
}

/** What the demo did and where to look next. */
function summaryLines(
  baseUrl: string,
  seen: {
    checkout: ExperimentBody;
    onboarding: ExperimentBody;
    results: Results;
    /** The checkout experiment's state once the demo shipped its winner. */
    checkoutStatus: string;
    collecting: Awaited<ReturnType<DemoApi['dashboard']>>;
    offline: OfflineRunBody;
  },
  firstDay: string,
  now: Date,
): string[] {
  const { checkout, onboarding, results, collecting, offline } = seen;
  const url = baseUrl.replace('127.0.0.1', 'localhost');
  // The dashboard's development sign-in fills its form in from these (nothing secret in them).
  const signInQuery = `?${new URLSearchParams({ email: DEMO_EMAIL, org: DEMO_ORG, role: 'admin' })}`;
  const lines = [
    `Arbiter demo: org ${DEMO_ORG} with ${checkout.name} and ${onboarding.name}, traffic of today (UTC) sent through ${url}/v1/events and /v1/events/import, pipeline run for ${daysFrom(firstDay, now).join(', ')}.`,
    ...describeResults(checkout, results),
    seen.checkoutStatus,
    `  ${onboarding.name}: ${collecting.status === 404 ? collecting.body.detail : `results for ${collecting.body.computed_for}`}`,
    ...describeOfflineRun(offline, url),
    '',
    `Dashboard (sign in with Email ${DEMO_EMAIL}, Organization ${DEMO_ORG}, Role admin):`,
    `  ${url}/experiments/${checkout.id}/results${signInQuery}`,
    `  ${url}/experiments/${onboarding.id}/results${signInQuery}`,
    '',
    'Results through the API (send the session token below as a Bearer token):',
    `  ${url}/v1/experiments/${checkout.name}/results`,
    `  ${url}/v1/experiments/${onboarding.name}/results`,
    `  ${url}/v1/experiments/${checkout.name}/traffic   ${url}/v1/experiments/${checkout.name}/live`,
    '',
    'Sign in to the demo org:',
    `  TOKEN=$(npx arbiter token --email ${DEMO_EMAIL} --org ${DEMO_ORG} --role admin)`,
    `  curl -H "Authorization: Bearer $TOKEN" ${url}/v1/experiments/${checkout.name}/results`,
    '',
    `The analysis window starts on the day an experiment was created, so the demo's history is today's; run it again on a later day to add that day's traffic. Next: docs/quickstart.md.`,
  ];
  return lines;
}

/**
 * `arbiter demo`: seeds the demo org with two experiments and keys, sends today's simulated
 * traffic through the real ingest API, runs the pipeline for every day since the experiments
 * were created, stops the first shipping the winner its results recommend (the day is run
 * again: its final run ends at the stop), runs one offline evaluation of the first experiment on
 * a dataset, and prints where to look. Running it again changes nothing.
 */
export async function runDemo(config: Config, options: DemoOptions): Promise<void> {
  if (!isDevelopmentSessions(config))
    throw new DemoError(
      'the demo signs in with a development session; it is for a local server without ARBITER_SESSION_JWKS_URL',
    );
  const baseUrl = demoServerUrl(config, options.url);
  const api = await signIn(config, baseUrl);

  const checkout = await ensureExperiment(api, CHECKOUT);
  const onboarding = await ensureExperiment(api, ONBOARDING);
  const publishable = await ensureKey(api, 'publishable');
  const secret = await ensureKey(api, 'secret');

  const now = systemClock.now();
  const threshold = config.minEventsPerArm;
  const plan = [
    { experiment: checkout, users: 2 * Math.max(800, Math.ceil(threshold * 1.5)) },
    { experiment: onboarding, users: 2 * Math.max(1, Math.floor(threshold * 0.3)) },
  ];
  const today = utcDay(now);
  for (const { experiment, users } of plan) {
    if ((await foldedExposures(api, experiment.name, today)) >= users) continue;
    const traffic = trafficOf(experiment, users, now);
    await importConversions(api, secret, traffic.conversions);
    await sendLive(api, publishable, traffic.live);
  }
  for (const { experiment, users } of plan) await waitForFold(api, experiment.name, today, users);

  const firstDay = [checkout, onboarding].map((e) => utcDay(new Date(e.created_at))).sort()[0]!;
  for (const day of daysFrom(firstDay, now)) await requestPipelineRun(config, day);
  // Stopping moves today's run to the stop: the night's final run of the shipped experiment.
  if (await shipRecommended(api, checkout)) await requestPipelineRun(config, today);

  const results = DemoApi.expect(
    `reading ${checkout.name} results`,
    await api.dashboard('GET', `/v1/experiments/${checkout.name}/results`),
    200,
  );
  const collecting = await api.dashboard('GET', `/v1/experiments/${onboarding.name}/results`);
  const offline = await ensureOfflineRun(api, checkout.name, secret);
  const lines = summaryLines(
    baseUrl,
    {
      checkout,
      onboarding,
      results,
      checkoutStatus: await statusLine(api, checkout.name),
      collecting,
      offline,
    },
    firstDay,
    now,
  );
  for (const line of lines) options.write(line);
}
