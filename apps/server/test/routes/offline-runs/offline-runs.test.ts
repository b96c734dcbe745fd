import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OfflineScoring } from '../../../src/analysis/offline-scoring/offline-scoring.ts';
import { type Harness, startHarness } from '../../support/harness.ts';

/**
 * Offline runs: creation pins the experiment and dataset versions; results are taken in
 * batches of at most 500 rows with duplicates, conflicts and row errors by index; `complete`
 * scores with the built-in scorers and reports coverage; the items view; who may call.
 */
let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
let other: Awaited<ReturnType<Harness['org']>>;
let experimentId: string;

beforeAll(async () => {
  h = await startHarness();
  acme = await h.org('acme_offline');
  other = await h.org('other_offline');
  experimentId = await h.experiment(acme.admin, {
    allocation: [
      { variant: 'control', weight: 40 },
      { variant: 'short', weight: 30 },
      { variant: 'long', weight: 30 },
    ],
    variants: [
      { key: 'long', prompt: 'Be thorough.' },
      { key: 'control', prompt: 'You are helpful.' },
      { key: 'short', prompt: 'Be concise.' },
    ],
  });
});
afterAll(() => h.close());

type Call = (options: Parameters<Harness['call']>[1]) => ReturnType<Harness['call']>;
const session =
  (token: string): Call =>
  (options) =>
    h.call(token, options);
const key =
  (k: string): Call =>
  (options) =>
    h.ingest(k, options);

async function dataset(name: string, items: object[]): Promise<string> {
  const created = await h.call(acme.admin, {
    method: 'POST',
    url: '/v1/datasets',
    payload: { name },
  });
  expect(created.statusCode, created.body).toBe(201);
  const id = created.json().id;
  if (items.length > 0) {
    const up = await h.call(acme.admin, {
      method: 'POST',
      url: `/v1/datasets/${id}/items`,
      payload: { items },
    });
    expect(up.json().errors).toEqual([]);
  }
  return id;
}

const createRun = (call: Call, body: object, experiment = experimentId) =>
  call({ method: 'POST', url: `/v1/experiments/${experiment}/offline-runs`, payload: body });
const upload = (call: Call, runId: string, results: unknown[]) =>
  call({ method: 'POST', url: `/v1/offline-runs/${runId}/results`, payload: { results } });
const complete = (call: Call, runId: string) =>
  call({ method: 'POST', url: `/v1/offline-runs/${runId}/complete` });
const getRun = (call: Call, runId: string) =>
  call({ method: 'GET', url: `/v1/offline-runs/${runId}` });

const ITEMS = [
  { id: 'a', input: 'capital of France?', expected_output: 'Paris' },
  { id: 'b', input: 'two plus two?', expected_output: '4' },
  { id: 'c', input: 'JSON please', expected_output: { ok: true } },
];

describe('creating a run', () => {
  it('pins the versions, puts the baseline first and counts the expected results', async () => {
    const ds = await dataset('pins', ITEMS);
    const res = await createRun(session(acme.admin), {
      dataset_id: ds,
      repeats: 2,
      note: 'first try',
    });
    expect(res.statusCode, res.body).toBe(201);
    const run = res.json();
    expect(res.headers.location).toBe(`/v1/offline-runs/${run.id}`);
    expect(run).toMatchObject({
      experiment_id: experimentId,
      experiment_version: 1,
      dataset_id: ds,
      dataset_version: 2,
      variants: ['control', 'long', 'short'],
      baseline: 'control',
      repeats: 2,
      status: 'running',
      item_count: 3,
      expected_results: 3 * 3 * 2,
      received_results: 0,
      note: 'first try',
      comparisons: null,
      coverage: null,
    });
    // A later upload mints version 3; the run keeps version 2 and its three items.
    await h.call(acme.admin, {
      method: 'POST',
      url: `/v1/datasets/${ds}/items`,
      payload: { items: [{ id: 'd', input: 'new' }] },
    });
    expect((await getRun(session(acme.admin), run.id)).json()).toMatchObject({
      dataset_version: 2,
      expected_results: 18,
    });
    const late = await upload(session(acme.admin), run.id, [
      { item_id: 'd', variant: 'control', repeat: 0, output: 'x' },
    ]);
    expect(late.json()).toMatchObject({ accepted: 0, errors: [{ index: 0 }] });
    expect(late.json().errors[0].message).toContain('/item_id');
  });

  it('pins an older dataset version when asked, and the variants asked for', async () => {
    const ds = await dataset('older', ITEMS);
    await h.call(acme.admin, { method: 'DELETE', url: `/v1/datasets/${ds}/items/a` });
    const res = await createRun(key(acme.secret), {
      dataset_id: 'older',
      dataset_version: 2,
      variants: ['short', 'control'],
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      dataset_version: 2,
      variants: ['control', 'short'],
      expected_results: 6,
      scorers: [],
    });
    const past = await createRun(session(acme.admin), { dataset_id: ds, dataset_version: 9 });
    expect(past.statusCode).toBe(404);
    expect(past.json().type).toBe('/problems/dataset-version-not-found');
  });

  it('refuses bad input with pointers and stores nothing', async () => {
    const ds = await dataset('refusals', ITEMS);
    const before = (
      await h.call(acme.admin, {
        method: 'GET',
        url: `/v1/experiments/${experimentId}/offline-runs`,
      })
    ).json().length;
    const cases: Array<[object, string]> = [
      [{ dataset_id: ds, variants: ['control', 'nope'] }, '#/variants/1'],
      [{ dataset_id: ds, variants: ['short'] }, '#/variants'],
      [{ dataset_id: ds, repeats: 11 }, '#/repeats'],
      [
        { dataset_id: ds, scorers: [{ name: 'n', kind: 'numeric_close' }] },
        '#/scorers/0/tolerance',
      ],
      [
        {
          dataset_id: ds,
          scorers: [
            { name: 'x', kind: 'contains' },
            { name: 'x', kind: 'json_valid' },
          ],
        },
        '#/scorers/1/name',
      ],
      [{ dataset_id: ds, scorers: [{ name: 'lat', kind: 'latency_ms' }] }, '#/scorers/0/name'],
      [{ dataset_id: ds, scorers: [{ name: 'q', kind: 'vibes' }] }, '#/scorers/0/kind'],
      [{ dataset_id: ds, extra: 1 }, '#/extra'],
    ];
    for (const [body, pointer] of cases) {
      const res = await createRun(session(acme.admin), body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().type).toBe('/problems/validation-error');
      expect(
        res.json().errors.map((e: { pointer: string }) => e.pointer),
        JSON.stringify(body),
      ).toContain(pointer);
    }
    const empty = await dataset('empty', []);
    const none = await createRun(session(acme.admin), { dataset_id: empty });
    expect(none.statusCode).toBe(400);
    expect(none.json().errors[0].pointer).toBe('#/dataset_id');
    expect((await createRun(session(acme.admin), { dataset_id: 'no-such' })).statusCode).toBe(404);
    expect(
      (await createRun(session(acme.admin), { dataset_id: ds }, 'no-such-exp')).statusCode,
    ).toBe(404);
    const after = (
      await h.call(acme.admin, {
        method: 'GET',
        url: `/v1/experiments/${experimentId}/offline-runs`,
      })
    ).json().length;
    expect(after).toBe(before);
  });

  it('lists the experiment’s runs newest first and records each creation in the audit log', async () => {
    const ds = await dataset('listing', ITEMS);
    const exp = await h.experiment(acme.admin);
    const first = (await createRun(session(acme.admin), { dataset_id: ds }, exp)).json();
    const second = (await createRun(key(acme.secret), { dataset_id: ds, repeats: 3 }, exp)).json();
    const list = await h.call(acme.admin, {
      method: 'GET',
      url: `/v1/experiments/${exp}/offline-runs`,
    });
    expect(list.json().map((r: { id: string }) => r.id)).toEqual([second.id, first.id]);
    const trail = (
      await h.call(acme.admin, { method: 'GET', url: `/v1/audit?target_id=${exp}` })
    ).json();
    const runs = trail.filter((e: { action: string }) => e.action === 'offline_run.created');
    expect(
      runs.map((e: { details: object; actor: object | null }) => ({
        d: e.details,
        byUser: e.actor !== null,
      })),
    ).toEqual([
      {
        d: expect.objectContaining({
          run_id: second.id,
          repeats: 3,
          via: 'secret_key',
          dataset_version: 2,
        }),
        byUser: false,
      },
      {
        d: expect.objectContaining({ run_id: first.id, repeats: 1, via: 'session' }),
        byUser: true,
      },
    ]);
  });
});

describe('uploading results', () => {
  it('counts accepted rows, duplicates and conflicts, keeps the first row, and reports bad rows by index', async () => {
    const ds = await dataset('uploads', ITEMS);
    const run = (
      await createRun(session(acme.admin), {
        dataset_id: ds,
        variants: ['control', 'short'],
        scorers: [
          { name: 'exact', kind: 'exact_match' },
          { name: 'stars', kind: 'custom' },
        ],
      })
    ).json();
    const first = await upload(key(acme.secret), run.id, [
      { item_id: 'a', variant: 'control', repeat: 0, output: 'Paris', scores: { stars: 4 } },
      { item_id: 'a', variant: 'short', repeat: 0, output: 'paris' },
      { item_id: 'a', variant: 'short', repeat: 0, output: 'paris' },
      { item_id: 'a', variant: 'short', repeat: 0, output: 'Lyon' },
      { item_id: 'zzz', variant: 'short', repeat: 0, output: 'x' },
      { item_id: 'b', variant: 'long', repeat: 0, output: 'x' },
      { item_id: 'b', variant: 'short', repeat: 1, output: 'x' },
      { item_id: 'b', variant: 'short', repeat: 0, scores: { unknown: 1 } },
      { item_id: 'b', variant: 'short', repeat: 0, surprise: true },
      'not a row',
    ]);
    expect(first.statusCode, first.body).toBe(200);
    const answer = first.json();
    expect(answer).toMatchObject({ accepted: 2, duplicates: 1, conflicts: 1 });
    expect(answer.errors.map((e: { index: number }) => e.index)).toEqual([4, 5, 6, 7, 8, 9]);
    expect(answer.errors[1].message).toContain('/variant');
    expect(answer.errors[2].message).toContain('/repeat');
    expect(answer.errors[3].message).toContain('/scores/unknown');
    const again = await upload(session(acme.admin), run.id, [
      { item_id: 'a', variant: 'control', repeat: 0, output: 'Paris', scores: { stars: 4 } },
      { item_id: 'a', variant: 'control', repeat: 0, output: 'Paris', scores: { stars: 5 } },
    ]);
    expect(again.json()).toEqual({ accepted: 0, duplicates: 1, conflicts: 1, errors: [] });
    const items = await h.call(acme.admin, {
      method: 'GET',
      url: `/v1/offline-runs/${run.id}/items?sort=item&limit=1`,
    });
    const a = items.json().data[0];
    expect(a.variants.short.map((r: { output: string }) => r.output)).toEqual(['paris']);
    expect(a.variants.control[0].output).toBe('Paris');
    expect(items.json().has_more).toBe(true);
    expect((await getRun(session(acme.admin), run.id)).json().received_results).toBe(2);
  });

  it('refuses custom scores beyond ±1e12 (their squares would overflow the statistics)', async () => {
    const ds = await dataset('huge-scores', ITEMS);
    const run = (
      await createRun(session(acme.admin), {
        dataset_id: ds,
        variants: ['control', 'short'],
        scorers: [{ name: 'stars', kind: 'custom' }],
      })
    ).json();
    const answer = (
      await upload(key(acme.secret), run.id, [
        { item_id: 'a', variant: 'control', repeat: 0, scores: { stars: 1e12 } },
        { item_id: 'a', variant: 'short', repeat: 0, scores: { stars: 1e154 } },
        { item_id: 'b', variant: 'control', repeat: 0, scores: { stars: -1.5e12 } },
        { item_id: 'b', variant: 'short', repeat: 0, scores: { stars: -1e12 } },
      ])
    ).json();
    expect(answer.accepted).toBe(2);
    expect(answer.errors.map((e: { index: number }) => e.index)).toEqual([1, 2]);
    expect(answer.errors[0].message).toContain('/scores/stars');
    expect(answer.errors[1].message).toContain('/scores/stars');
    expect((await getRun(session(acme.admin), run.id)).json().received_results).toBe(2);
  });

  it('stores every value as sent: quotes, backslashes, newlines, braces, NULL as a word, JSON', async () => {
    const ds = await dataset('verbatim', ITEMS);
    const run = (
      await createRun(session(acme.admin), {
        dataset_id: ds,
        variants: ['control', 'short'],
        scorers: [{ name: 'stars', kind: 'custom' }],
      })
    ).json();
    const tricky = 'a "quoted" \\ back\\slash,\n{braces}, NULL, naïve 🙂';
    const rows = [
      {
        item_id: 'a',
        variant: 'control',
        repeat: 0,
        output: tricky,
        model: 'NULL',
        latency_ms: 0.1 + 0.2,
        input_tokens: 1e12,
        output_tokens: 0,
        cost: 1e-9,
        scores: { stars: -2.5e-7 },
      },
      { item_id: 'a', variant: 'short', repeat: 0, output: { text: tricky, n: [1, null] } },
      { item_id: 'b', variant: 'short', repeat: 0, error: 'NULL', output: null },
    ];
    expect((await upload(key(acme.secret), run.id, rows)).json()).toMatchObject({ accepted: 3 });
    // The same rows again are duplicates: the stored fingerprints are those of the rows sent.
    expect((await upload(key(acme.secret), run.id, rows)).json()).toMatchObject({
      accepted: 0,
      duplicates: 3,
    });
    const items = (
      await h.call(acme.admin, { method: 'GET', url: `/v1/offline-runs/${run.id}/items?sort=item` })
    ).json().data;
    expect(items[0].variants.control[0]).toMatchObject({
      output: tricky,
      model: 'NULL',
      error: null,
      latency_ms: 0.1 + 0.2,
      input_tokens: 1e12,
      output_tokens: 0,
      cost: 1e-9,
    });
    expect(items[0].variants.short[0].output).toEqual({ text: tricky, n: [1, null] });
    expect(items[1].variants.short[0]).toMatchObject({ output: null, error: 'NULL' });
    const done = (await complete(session(acme.admin), run.id)).json();
    expect(done.status).toBe('complete');
    const scored = (
      await h.call(acme.admin, { method: 'GET', url: `/v1/offline-runs/${run.id}/items?sort=item` })
    ).json().data;
    expect(scored[0].variants.control[0].scores).toEqual({
      stars: -2.5e-7,
      latency_ms: 0.1 + 0.2,
      total_tokens: 1e12,
      cost: 1e-9,
      error_rate: 0,
    });
  });

  it('stores tabs, carriage returns and a literal \\N as sent (COPY text on PostgreSQL)', async () => {
    const ds = await dataset('copy-escapes', ITEMS);
    const run = (
      await createRun(session(acme.admin), { dataset_id: ds, variants: ['control', 'short'] })
    ).json();
    const tricky = 'tab\there\r\nCR, \\N, \\t, \\\\';
    const rows = [
      { item_id: 'a', variant: 'control', repeat: 0, output: tricky, model: '\\N' },
      { item_id: 'a', variant: 'short', repeat: 0, output: { '\t': tricky }, error: tricky },
    ];
    expect((await upload(key(acme.secret), run.id, rows)).json()).toMatchObject({ accepted: 2 });
    expect((await upload(key(acme.secret), run.id, rows)).json()).toMatchObject({
      accepted: 0,
      duplicates: 2,
    });
    const items = (
      await h.call(acme.admin, { method: 'GET', url: `/v1/offline-runs/${run.id}/items?sort=item` })
    ).json().data;
    expect(items[0].variants.control[0]).toMatchObject({ output: tricky, model: '\\N' });
    expect(items[0].variants.short[0]).toMatchObject({ output: { '\t': tricky }, error: tricky });
  });

  it('keeps the first row of an identity when uploads of one run race', async () => {
    const ds = await dataset('race', ITEMS);
    const run = (
      await createRun(session(acme.admin), { dataset_id: ds, variants: ['control', 'short'] })
    ).json();
    // Eight uploads at once, each the same six identities; uploads 0-3 send one output, 4-7
    // another. Whichever lands first is kept: every identity is accepted exactly once.
    const batch = (k: number) =>
      ['a', 'b', 'c'].flatMap((item_id) =>
        ['control', 'short'].map((variant) => ({
          item_id,
          variant,
          repeat: 0,
          output: k < 4 ? 'first' : 'second',
        })),
      );
    const answers = (
      await Promise.all(
        Array.from({ length: 8 }, (_, k) => upload(key(acme.secret), run.id, batch(k))),
      )
    ).map((r) => r.json());
    const sum = (f: 'accepted' | 'duplicates' | 'conflicts') =>
      answers.reduce((n, a) => n + a[f], 0);
    expect(sum('accepted')).toBe(6);
    expect(sum('accepted') + sum('duplicates') + sum('conflicts')).toBe(48);
    // the batch that won stored all six rows; the others each see the six stored rows
    const winner = answers.findIndex((a) => a.accepted === 6);
    expect(winner).toBeGreaterThanOrEqual(0);
    const kept = winner < 4 ? 'first' : 'second';
    answers.forEach((a, k) => {
      if (k === winner) return;
      const same = (k < 4 ? 'first' : 'second') === kept;
      expect(a).toEqual({
        accepted: 0,
        duplicates: same ? 6 : 0,
        conflicts: same ? 0 : 6,
        errors: [],
      });
    });
    const items = (
      await h.call(acme.admin, { method: 'GET', url: `/v1/offline-runs/${run.id}/items?sort=item` })
    ).json().data;
    for (const item of items)
      for (const variant of ['control', 'short'])
        expect(item.variants[variant][0].output).toBe(kept);
  });

  it('takes 500 rows and refuses 501 with a pointer, storing none', async () => {
    const many = Array.from({ length: 200 }, (_, i) => ({ id: `i${i}`, input: `q${i}` }));
    const ds = await dataset('bound', many);
    const run = (await createRun(session(acme.admin), { dataset_id: ds, repeats: 3 })).json();
    const rows = (n: number, from = 0) =>
      Array.from({ length: n }, (_, k) => {
        const j = from + k;
        return {
          item_id: `i${j % 200}`,
          variant: ['control', 'long', 'short'][Math.floor(j / 200) % 3],
          repeat: Math.floor(j / 600),
          output: 'o',
        };
      });
    const over = await upload(session(acme.admin), run.id, rows(501));
    expect(over.statusCode).toBe(400);
    expect(over.json().errors[0].pointer).toBe('#/results');
    expect((await getRun(session(acme.admin), run.id)).json().received_results).toBe(0);
    const full = await upload(session(acme.admin), run.id, rows(500));
    expect(full.json()).toEqual({ accepted: 500, duplicates: 0, conflicts: 0, errors: [] });
  });

  it('meters nothing: usage is unchanged by results', async () => {
    const usage = async () =>
      (await h.call(acme.admin, { method: 'GET', url: '/v1/usage' })).json();
    const before = await usage();
    const ds = await dataset('meter', ITEMS);
    const run = (await createRun(session(acme.admin), { dataset_id: ds })).json();
    await upload(session(acme.admin), run.id, [
      {
        item_id: 'a',
        variant: 'control',
        repeat: 0,
        output: 'Paris',
        latency_ms: 5,
        input_tokens: 3,
        output_tokens: 4,
        cost: 0.1,
      },
    ]);
    await complete(session(acme.admin), run.id);
    expect(await usage()).toEqual(before);
  });
});

describe('completing a run', () => {
  it('scores with the built-in scorers and the measured ones, per result', async () => {
    const ds = await dataset('scorers', [
      { id: 'a', input: 'q', expected_output: 'Paris' },
      { id: 'b', input: 'q', expected_output: '4' },
      { id: 'c', input: 'q', expected_output: 'naïve café' },
    ]);
    const run = (
      await createRun(session(acme.admin), {
        dataset_id: ds,
        variants: ['control', 'short'],
        scorers: [
          { name: 'exact', kind: 'exact_match' },
          { name: 'exact_ci', kind: 'exact_match', case_sensitive: false },
          { name: 'has', kind: 'contains' },
          { name: 'json', kind: 'json_valid' },
          { name: 'lev', kind: 'levenshtein' },
          { name: 'close', kind: 'numeric_close', tolerance: 0.5 },
          { name: 'stars', kind: 'custom' },
          { name: 'cost', kind: 'cost', non_inferiority_margin: 1 },
        ],
      })
    ).json();
    const res = await upload(session(acme.admin), run.id, [
      {
        item_id: 'a',
        variant: 'control',
        repeat: 0,
        output: '  paris ',
        latency_ms: 100,
        input_tokens: 10,
        output_tokens: 5,
        cost: 0.5,
        scores: { stars: 3 },
      },
      { item_id: 'b', variant: 'control', repeat: 0, output: '4.4', latency_ms: 50, cost: 0.25 },
      { item_id: 'c', variant: 'control', repeat: 0, output: 'naive cafe', scores: { stars: 1 } },
      { item_id: 'a', variant: 'short', repeat: 0, output: 'It is Paris', latency_ms: 80 },
      { item_id: 'b', variant: 'short', repeat: 0, output: { answer: 4 } },
      {
        item_id: 'c',
        variant: 'short',
        repeat: 0,
        error: 'timeout',
        latency_ms: 30000,
        scores: { stars: 5 },
      },
    ]);
    expect(res.json().accepted).toBe(6);
    const done = await complete(session(acme.admin), run.id);
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().status).toBe('complete');
    expect(done.json().scorers.map((s: { name: string }) => s.name)).toEqual([
      'exact',
      'exact_ci',
      'has',
      'json',
      'lev',
      'close',
      'stars',
      'cost',
      'latency_ms',
      'total_tokens',
      'error_rate',
    ]);
    const items = (
      await h.call(acme.admin, { method: 'GET', url: `/v1/offline-runs/${run.id}/items?sort=item` })
    ).json().data;
    const scores = (id: string, variant: string) =>
      items.find((i: { id: string }) => i.id === id).variants[variant][0].scores;
    expect(scores('a', 'control')).toEqual({
      exact: 0,
      exact_ci: 1,
      has: 0,
      json: 0,
      lev: 1 - 4 / 8, // "  paris " to "Paris": 4 edits of 8 code points
      stars: 3,
      cost: 0.5,
      latency_ms: 100,
      total_tokens: 15,
      error_rate: 0,
    });
    expect(scores('b', 'control')).toMatchObject({ close: 1, json: 1, exact: 0, cost: 0.25 });
    // Levenshtein in code points: "naive cafe" against "naïve café" is 2 of 10.
    expect(scores('c', 'control').lev).toBeCloseTo(0.8, 15);
    expect(scores('a', 'short')).toMatchObject({ has: 1, exact: 0, json: 0 });
    // A JSON output compares as its compact JSON: {"answer":4} contains "4", is no number.
    expect(scores('b', 'short')).toMatchObject({ json: 1, close: 0, has: 1, exact: 0 });
    // A failed result: no value for output scorers or custom ones, 1 in error_rate.
    expect(scores('c', 'short')).toEqual({ latency_ms: 30000, error_rate: 1 });
    expect(done.json().comparisons['error_rate::short']).toMatchObject({
      n_items: 3,
      mean_difference: 1 / 3,
      test: 'mcnemar_exact',
    });
    expect(Object.keys(done.json().comparisons)).toContain('cost::short');
    expect(done.json().comparisons['cost::short']).toMatchObject({
      n_items: 0,
      non_inferior: false,
    });
    expect(done.json().gates.short.passed).toBe(false);
    expect(done.json().gates.short.reasons.join(' ')).toContain('cost');
  });

  it('completes with missing results, says what is missing, then refuses more results', async () => {
    const ds = await dataset('coverage', ITEMS);
    const run = (
      await createRun(session(acme.admin), {
        dataset_id: ds,
        variants: ['control', 'short'],
        repeats: 2,
      })
    ).json();
    await upload(session(acme.admin), run.id, [
      { item_id: 'a', variant: 'control', repeat: 0, output: 'x' },
      { item_id: 'a', variant: 'control', repeat: 1, output: 'x' },
      { item_id: 'a', variant: 'short', repeat: 0, error: 'boom' },
    ]);
    const done = (await complete(key(acme.secret), run.id)).json();
    expect(done.status).toBe('complete');
    expect(done.completed_at).not.toBeNull();
    expect(done.coverage).toEqual({
      expected_results: 12,
      received_results: 3,
      missing_results: 9,
      failed_results: 1,
      missing: [
        { item_id: 'b', variant: 'control', repeat: 0 },
        { item_id: 'b', variant: 'control', repeat: 1 },
        { item_id: 'c', variant: 'control', repeat: 0 },
        { item_id: 'c', variant: 'control', repeat: 1 },
        { item_id: 'a', variant: 'short', repeat: 1 },
        { item_id: 'b', variant: 'short', repeat: 0 },
        { item_id: 'b', variant: 'short', repeat: 1 },
        { item_id: 'c', variant: 'short', repeat: 0 },
        { item_id: 'c', variant: 'short', repeat: 1 },
      ],
    });
    expect(Object.keys(done.summary).sort()).toEqual(['error_rate::control', 'error_rate::short']);
    const late = await upload(session(acme.admin), run.id, [
      { item_id: 'b', variant: 'control', repeat: 0, output: 'x' },
    ]);
    expect(late.statusCode).toBe(409);
    expect(late.json().type).toBe('/problems/offline-run-not-open');
    const again = await complete(session(acme.admin), run.id);
    expect(again.json()).toEqual(done);
    expect((await getRun(session(acme.admin), run.id)).json()).toEqual(done);
  });
});

describe('a run whose scoring outlasts the answer', () => {
  it('is answered `scoring` and completes in the background', async () => {
    const ds = await dataset('slow', ITEMS);
    const run = (await createRun(session(acme.admin), { dataset_id: ds })).json();
    await upload(session(acme.admin), run.id, [
      { item_id: 'a', variant: 'control', repeat: 0, output: 'x' },
    ]);
    // The scorer's writes wait for the gate (the claim, the first transaction, does not), so
    // the answer is read while scoring is surely under way.
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let transactions = 0;
    const db = new Proxy(h.ctx.db, {
      get(target, property, receiver) {
        if (property !== 'transaction') return Reflect.get(target, property, receiver);
        return async (...args: Parameters<typeof target.transaction>) => {
          if (++transactions > 1) await gate;
          return target.transaction(...args);
        };
      },
    });
    const scoring = new OfflineScoring({ ...h.ctx, db, completeWaitMs: 0 });
    const answered = await scoring.complete(acme.orgId, run.id);
    expect(answered).toMatchObject({ status: 'scoring', comparisons: null });
    open();
    await scoring.idle();
    const done = (await getRun(session(acme.admin), run.id)).json();
    expect(done.status).toBe('complete');
    expect(done.coverage.received_results).toBe(1);
  });
});

describe('the items view', () => {
  it('sorts by regressions and improvements for the treatment and pages with starting_after', async () => {
    const ds = await dataset('view', [
      { id: 'a', input: 'q', expected_output: 'abcd' },
      { id: 'b', input: 'q', expected_output: 'abcd' },
      { id: 'c', input: 'q', expected_output: 'abcd' },
      { id: 'd', input: 'q', expected_output: 'abcd' },
    ]);
    const run = (
      await createRun(session(acme.admin), {
        dataset_id: ds,
        variants: ['control', 'short'],
        scorers: [{ name: 'lev', kind: 'levenshtein' }],
      })
    ).json();
    await upload(session(acme.admin), run.id, [
      ...['a', 'b', 'c', 'd'].map((id) => ({
        item_id: id,
        variant: 'control',
        repeat: 0,
        output: 'abcx',
      })),
      { item_id: 'a', variant: 'short', repeat: 0, output: 'abcd' },
      { item_id: 'b', variant: 'short', repeat: 0, output: 'xxxx' },
      { item_id: 'c', variant: 'short', repeat: 0, output: 'abxx' },
    ]);
    await complete(session(acme.admin), run.id);
    const page = async (query: string) =>
      (
        await h.call(acme.admin, {
          method: 'GET',
          url: `/v1/offline-runs/${run.id}/items?${query}`,
        })
      ).json();
    const ids = (p: { data: Array<{ id: string }> }) => p.data.map((i) => i.id);
    const worst = await page('');
    expect(worst).toMatchObject({ treatment: 'short', scorer: 'lev', sort: 'regressions' });
    expect(ids(worst)).toEqual(['b', 'c', 'a', 'd']);
    expect(worst.data[0].difference).toBeCloseTo(-0.75, 15);
    expect(worst.data[3].difference).toBeNull();
    expect(ids(await page('sort=improvements'))).toEqual(['a', 'c', 'b', 'd']);
    const first = await page('limit=2');
    expect(first.has_more).toBe(true);
    expect(ids(await page('limit=2&starting_after=c'))).toEqual(['a', 'd']);
    const bad = await h.call(acme.admin, {
      method: 'GET',
      url: `/v1/offline-runs/${run.id}/items?treatment=control`,
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0]).toMatchObject({ parameter: 'treatment' });
    const badSort = await h.call(acme.admin, {
      method: 'GET',
      url: `/v1/offline-runs/${run.id}/items?sort=random`,
    });
    expect(badSort.statusCode).toBe(400);
  });
});

describe('who may call', () => {
  it('admits a session and the secret key, refuses the publishable key and other orgs', async () => {
    const ds = await dataset('auth', ITEMS);
    const refused = await createRun(key(acme.publishable), { dataset_id: ds });
    expect(refused.statusCode).toBe(401);
    const none = await h.call(null, {
      method: 'POST',
      url: `/v1/experiments/${experimentId}/offline-runs`,
      payload: { dataset_id: ds },
    });
    expect(none.statusCode).toBe(401);
    const run = (await createRun(key(acme.secret), { dataset_id: ds })).json();
    for (const [method, url, payload] of [
      ['GET', `/v1/offline-runs/${run.id}`, undefined],
      ['GET', `/v1/offline-runs/${run.id}/items`, undefined],
      ['GET', `/v1/experiments/${experimentId}/offline-runs`, undefined],
      ['POST', `/v1/offline-runs/${run.id}/results`, { results: [] }],
      ['POST', `/v1/offline-runs/${run.id}/complete`, undefined],
    ] as const) {
      const pub = await h.ingest(acme.publishable, {
        method,
        url,
        ...(payload ? { payload } : {}),
      });
      expect(pub.statusCode, `${method} ${url}`).toBe(401);
    }
    // Another org sees neither the run nor the experiment.
    expect((await getRun(session(other.admin), run.id)).statusCode).toBe(404);
    expect((await getRun(key(other.secret), run.id)).statusCode).toBe(404);
    expect((await upload(key(other.secret), run.id, [])).statusCode).toBe(404);
    expect((await complete(session(other.admin), run.id)).statusCode).toBe(404);
    expect((await createRun(session(other.admin), { dataset_id: ds })).statusCode).toBe(404);
    expect((await getRun(session(acme.admin), run.id)).json().status).toBe('running');
    expect((await getRun(session(acme.admin), 'not-a-uuid')).statusCode).toBe(404);
  });
});
