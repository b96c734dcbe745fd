/**
 * `evaluate` of the TypeScript client (from its source) against the real server on a port,
 * with the task calling a local OpenAI-compatible provider through the real `openai` SDK
 * wrapped by `wrap`: each variant's prompt reaches the provider, the calls' latency and tokens
 * land on the results and send no online events, repeats run, a thrown error is recorded, an
 * interrupted run is resumed without running anything twice, and a publishable key is refused.
 */
import { eq } from 'drizzle-orm';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Arbiter,
  ArbiterError,
  type EvaluationProgress,
  type EvaluationTask,
  type OfflineRun,
} from '../../../clients/typescript/src/index.ts';
import {
  RESPONSE_DELAY_MS,
  startFakeLlm,
  USAGE,
} from '../../../clients/typescript/test/support/fake-llm.ts';
import { events } from '../src/db/schema.ts';
import { type Harness, startHarness } from './support/harness.ts';

const EXPERIMENT = 'offline-e2e';
const DATASET = 'offline-e2e-questions';
const PROMPTS = { control: 'You are helpful.', terse: 'Answer in one word.' } as const;
const ANSWER = 'Hi there.';
const MODEL = 'gpt-fake';
const REPEATS = 2;
/** Sorts last by id, so that the first tasks all call the provider. */
const FAILING_ITEM = 'q5-fails';
const ITEMS = [
  { id: 'q1', input: 'Say hello', expected_output: ANSWER },
  // Its variables win over the variant's.
  { id: 'q2', input: 'Say hi', expected_output: ANSWER, variables: { temperature: 0 } },
  { id: 'q3', input: 'Greet me', expected_output: 'Hello.' },
  { id: 'q4', input: { question: 'Wave?' }, expected_output: ANSWER },
  { id: FAILING_ITEM, input: 'This one fails', expected_output: ANSWER },
];
const VARIANTS = Object.keys(PROMPTS);
const ALL_TRIPLES = ITEMS.flatMap((item) =>
  VARIANTS.flatMap((variant) =>
    Array.from({ length: REPEATS }, (_, repeat) => `${item.id}/${variant}/${repeat}`),
  ),
);

let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
let baseUrl: string;
let llm: Awaited<ReturnType<typeof startFakeLlm>>;
let experimentId: string;
const clients: Arbiter[] = [];

function secretClient(options: Partial<ConstructorParameters<typeof Arbiter>[0]> = {}) {
  const client = new Arbiter({
    apiKey: acme.secret,
    baseUrl,
    logger: { warn: () => {}, error: () => {} },
    pollIntervalMs: 3_600_000,
    ...options,
  });
  clients.push(client);
  return client;
}

/** The task every run here uses; it notes each call as `item/variant/repeat`. */
function questionTask(client: Arbiter, ran: string[], inFlight?: { now: number; most: number }) {
  const openai = client.wrap(
    new OpenAI({ apiKey: 'sk-test', baseURL: `${llm.url}/v1`, maxRetries: 0 }),
    EXPERIMENT,
  );
  const task: EvaluationTask = async ({ item, variant, prompt, variables, repeat }) => {
    ran.push(`${item.id}/${variant}/${repeat}`);
    if (inFlight !== undefined) {
      inFlight.now++;
      inFlight.most = Math.max(inFlight.most, inFlight.now);
    }
    try {
      if (item.id === FAILING_ITEM) throw new Error(`no answer for ${item.id}`);
      const completion = await openai.chat.completions.create({
        model: MODEL,
        temperature: variables.temperature as number,
        messages: [
          { role: 'system', content: prompt ?? '' },
          {
            role: 'user',
            content: typeof item.input === 'string' ? item.input : JSON.stringify(item.input),
          },
        ],
      });
      return completion.choices[0]?.message.content;
    } finally {
      if (inFlight !== undefined) inFlight.now--;
    }
  };
  return task;
}

interface StoredResult {
  repeat: number;
  output: unknown;
  error: string | null;
  latency_ms: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  model: string | null;
  scores: Record<string, number>;
}

/** The run's results as the items view serves them, keyed `item/variant/repeat`. */
async function storedResults(runId: string): Promise<Map<string, StoredResult>> {
  const res = await h.ingest(acme.secret, {
    method: 'GET',
    url: `/v1/offline-runs/${runId}/items?sort=item&limit=500`,
  });
  expect(res.statusCode, res.body).toBe(200);
  const out = new Map<string, StoredResult>();
  for (const item of res.json().data as Array<{
    id: string;
    variants: Record<string, StoredResult[]>;
  }>) {
    for (const [variant, results] of Object.entries(item.variants)) {
      for (const r of results) out.set(`${item.id}/${variant}/${r.repeat}`, r);
    }
  }
  return out;
}

beforeAll(async () => {
  h = await startHarness();
  baseUrl = await h.app.listen({ port: 0, host: '127.0.0.1' });
  acme = await h.org('acme_evaluate');
  llm = await startFakeLlm();
  experimentId = await h.experiment(acme.admin, {
    name: EXPERIMENT,
    allocation: [
      { variant: 'control', weight: 50 },
      { variant: 'terse', weight: 50 },
    ],
    variants: [
      { key: 'control', prompt: PROMPTS.control, variables: { temperature: 0.7 } },
      { key: 'terse', prompt: PROMPTS.terse, variables: { temperature: 0.2 } },
    ],
  });
  const created = await h.call(acme.admin, {
    method: 'POST',
    url: '/v1/datasets',
    payload: { name: DATASET },
  });
  expect(created.statusCode, created.body).toBe(201);
  const uploaded = await h.call(acme.admin, {
    method: 'POST',
    url: `/v1/datasets/${created.json().id}/items`,
    payload: { items: ITEMS },
  });
  expect(uploaded.json().errors).toEqual([]);
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await llm?.close();
  await h?.close();
});

describe('evaluate against the server', () => {
  let run: OfflineRun;
  let results: Map<string, StoredResult>;
  const ran: string[] = [];
  const progress: EvaluationProgress[] = [];
  const inFlight = { now: 0, most: 0 };
  let client: Arbiter;

  beforeAll(async () => {
    client = secretClient();
    llm.requests.length = 0;
    // Inside withUser a wrapped call would otherwise send an exposure and a model_call.
    run = await client.withUser('evaluating-user', () =>
      client.evaluate({
        experiment: EXPERIMENT,
        dataset: DATASET,
        task: questionTask(client, ran, inFlight),
        repeats: REPEATS,
        concurrency: 3,
        scorers: [
          { name: 'exact', kind: 'exact_match' },
          { name: 'length', kind: 'custom', score: ({ output }) => String(output).length },
        ],
        note: 'end to end',
        onProgress: (p) => progress.push(p),
      }),
    );
    results = await storedResults(run.id);
  });

  it('returns the completed run with every result, the failed ones counted', () => {
    expect(run.status).toBe('complete');
    expect(run.experiment_id).toBe(experimentId);
    expect(run.variants).toEqual(['control', 'terse']);
    expect(run.note).toBe('end to end');
    expect(run.coverage).toMatchObject({
      expected_results: ALL_TRIPLES.length,
      received_results: ALL_TRIPLES.length,
      missing_results: 0,
      failed_results: VARIANTS.length * REPEATS,
    });
    expect(Object.keys(run.comparisons ?? {})).toEqual(
      expect.arrayContaining(['exact::terse', 'length::terse', 'latency_ms::terse']),
    );
  });

  it('runs every (item, variant, repeat) once, repeats included, at most 3 at once', () => {
    expect([...ran].sort()).toEqual([...ALL_TRIPLES].sort());
    expect(ran.filter((t) => t.endsWith('/1'))).toHaveLength(ALL_TRIPLES.length / 2);
    expect(inFlight.most).toBe(3);
    expect(progress.map((p) => p.done)).toEqual(ALL_TRIPLES.map((_, i) => i + 1));
    expect(new Set(progress.map((p) => p.total))).toEqual(new Set([ALL_TRIPLES.length]));
  });

  it("sends each variant's prompt, with its variables under the item's, to the provider", () => {
    const calls = llm.requests.map((r) => {
      const [system, user] = r.body.messages as Array<{ content: string }>;
      return { system: system?.content, user: user?.content, temperature: r.body.temperature };
    });
    const okItems = ITEMS.length - 1;
    expect(calls).toHaveLength(okItems * VARIANTS.length * REPEATS);
    for (const [variant, prompt] of Object.entries(PROMPTS)) {
      const mine = calls.filter((c) => c.system === prompt);
      expect(mine, variant).toHaveLength(okItems * REPEATS);
      const variantTemperature = variant === 'control' ? 0.7 : 0.2;
      for (const c of mine) {
        expect(c.temperature).toBe(c.user === 'Say hi' ? 0 : variantTemperature);
      }
    }
    expect(calls.some((c) => c.user === 'This one fails')).toBe(false);
  });

  it("attaches each call's latency, tokens and model to its result, and the output", () => {
    for (const triple of ALL_TRIPLES.filter((t) => !t.startsWith(FAILING_ITEM))) {
      const r = results.get(triple);
      expect(r, triple).toBeDefined();
      expect(r?.error).toBeNull();
      expect(r?.output).toBe(ANSWER);
      expect(r?.input_tokens).toBe(USAGE.input);
      expect(r?.output_tokens).toBe(USAGE.output);
      expect(r?.model).toBe(MODEL);
      // The fake provider holds every answer back this long.
      expect(r?.latency_ms).toBeGreaterThanOrEqual(RESPONSE_DELAY_MS);
      expect(r?.scores.length).toBe(ANSWER.length);
      expect(r?.scores.exact).toBe(triple.startsWith('q3/') ? 0 : 1);
    }
  });

  it('records what the task threw as the result’s error, with no output or score', () => {
    for (const triple of ALL_TRIPLES.filter((t) => t.startsWith(FAILING_ITEM))) {
      const r = results.get(triple);
      expect(r?.error, triple).toBe(`no answer for ${FAILING_ITEM}`);
      expect(r?.output).toBeNull();
      expect(r?.input_tokens).toBeNull();
      expect(r?.scores.length).toBeUndefined();
      expect(r?.scores.error_rate).toBe(1);
    }
  });

  it('sends no exposure or model_call for the calls made inside tasks', async () => {
    await client.flush();
    expect(client.stats()).toMatchObject({ queued: 0, sent: 0, dropped: 0 });
    const stored = await h.ctx.db.select().from(events).where(eq(events.orgId, acme.orgId));
    expect(stored).toEqual([]);
  });
});

describe('an interrupted run', () => {
  it('is resumed with runId, running only the results it lacks, each once', async () => {
    // Uploads of 4 rows, one attempt each, and the third upload never reaches the server.
    let uploads = 0;
    const dropping: typeof fetch = async (input, init) => {
      if (String(input).endsWith('/results') && ++uploads === 3) {
        throw new TypeError('fetch failed');
      }
      return fetch(input, init);
    };
    const first = secretClient({ fetch: dropping, batchSize: 4, maxAttempts: 1 });
    const ranFirst: string[] = [];
    const failure = await first
      .evaluate({
        experiment: EXPERIMENT,
        dataset: DATASET,
        task: questionTask(first, ranFirst),
        repeats: REPEATS,
        concurrency: 1,
      })
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(failure).toBeInstanceOf(ArbiterError);
    const runs = await h.ingest(acme.secret, {
      method: 'GET',
      url: `/v1/experiments/${experimentId}/offline-runs`,
    });
    const open = (runs.json() as OfflineRun[]).filter((r) => r.status === 'running');
    expect(open).toHaveLength(1);
    const runId = open[0]?.id ?? '';
    expect((failure as Error).message).toContain(`runId: '${runId}'`);
    const held = new Set((await storedResults(runId)).keys());
    expect(held.size).toBe(8);
    // Those stored had run, and more ran whose upload was lost.
    expect(ranFirst.length).toBeGreaterThan(held.size);

    const second = secretClient();
    const ranSecond: string[] = [];
    const totals: number[] = [];
    const resumed = await second.evaluate({
      experiment: EXPERIMENT,
      dataset: DATASET,
      task: questionTask(second, ranSecond),
      runId,
      onProgress: (p) => totals.push(p.total),
    });
    expect(ranSecond.filter((t) => held.has(t))).toEqual([]);
    expect(new Set(ranSecond).size).toBe(ranSecond.length);
    expect([...held, ...ranSecond].sort()).toEqual([...ALL_TRIPLES].sort());
    expect(new Set(totals)).toEqual(new Set([ALL_TRIPLES.length - held.size]));
    expect(resumed.id).toBe(runId);
    expect(resumed.status).toBe('complete');
    expect(resumed.coverage).toMatchObject({
      received_results: ALL_TRIPLES.length,
      missing_results: 0,
    });

    // A completed run is returned as it is: nothing runs again.
    const again: string[] = [];
    const done = await second.evaluate({
      experiment: EXPERIMENT,
      dataset: DATASET,
      task: questionTask(second, again),
      runId,
    });
    expect(again).toEqual([]);
    expect(done.completed_at).toBe(resumed.completed_at);
  });
});

describe('a publishable key', () => {
  it('is refused at once, before any request', async () => {
    const requested: string[] = [];
    const client = new Arbiter({
      apiKey: acme.publishable,
      baseUrl,
      logger: { warn: () => {}, error: () => {} },
      fetch: (input, init) => {
        requested.push(String(input));
        return fetch(input, init);
      },
    });
    clients.push(client);
    await client.ready();
    const before = requested.length;
    let ran = 0;
    const failure = await client
      .evaluate({
        experiment: EXPERIMENT,
        dataset: DATASET,
        task: () => {
          ran++;
          return 'x';
        },
      })
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(failure).toBeInstanceOf(ArbiterError);
    expect((failure as Error).message).toMatch(/evaluate needs the org's secret key/);
    expect(requested.slice(before)).toEqual([]);
    expect(ran).toBe(0);
  });
});

describe('an output the server cannot store', () => {
  it('is sent again as a failed result carrying the server’s reason', async () => {
    const created = await h.ingest(acme.secret, {
      method: 'POST',
      url: '/v1/datasets',
      payload: { name: 'offline-e2e-nul' },
    });
    expect(created.statusCode, created.body).toBe(201);
    await h.ingest(acme.secret, {
      method: 'POST',
      url: `/v1/datasets/${created.json().id}/items`,
      payload: { items: [{ id: 'nul', input: 'anything' }] },
    });
    const client = secretClient();
    const run = await client.evaluate({
      experiment: EXPERIMENT,
      dataset: 'offline-e2e-nul',
      variants: ['control'],
      task: () => 'a\u0000b',
    });
    expect(run.status).toBe('complete');
    expect(run.coverage).toMatchObject({ received_results: 1, failed_results: 1 });
    const [result] = (await storedResults(run.id)).values();
    expect(result?.error).toMatch(/^the server refused this result: \/output/);
    expect(result?.output).toBeNull();
  });
});

// Last: it changes the experiment the tests above run.
describe('a run whose experiment changed since', () => {
  it('cannot be resumed: its prompts are no longer served', async () => {
    const created = await h.ingest(acme.secret, {
      method: 'POST',
      url: `/v1/experiments/${experimentId}/offline-runs`,
      payload: { dataset_id: DATASET },
    });
    expect(created.statusCode, created.body).toBe(201);
    const changed = await h.call(acme.admin, {
      method: 'PUT',
      url: `/v1/experiments/${experimentId}`,
      payload: {
        variants: [
          { key: 'control', prompt: 'You are very helpful.' },
          { key: 'terse', prompt: PROMPTS.terse },
        ],
      },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    const client = secretClient();
    let ran = 0;
    const failure = await client
      .evaluate({
        experiment: EXPERIMENT,
        dataset: DATASET,
        runId: created.json().id,
        task: () => {
          ran++;
          return 'x';
        },
      })
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(failure).toBeInstanceOf(ArbiterError);
    expect((failure as Error).message).toMatch(
      /pinned version 1 of experiment offline-e2e, which is now at version 2/,
    );
    expect(ran).toBe(0);
  });
});
