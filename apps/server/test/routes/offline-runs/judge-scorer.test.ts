import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { offlineRuns, offlineScores, usageCounters } from '../../../src/db/schema.ts';
import { usageMonth } from '../../../src/domain/billing/usage-month.ts';
import { claimScoring } from '../../../src/domain/offline-runs/scoring-lease.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import { judgeUsed, setPlan } from '../../support/judge-fixtures.ts';
import {
  type ChatRequest,
  type FakeJudgeServer,
  gradedResponse,
  scoreFromQualityMarker,
  startFakeJudge,
} from '../../support/judge-server.ts';

/**
 * The `judge` scorer of offline runs, against a local OpenAI-compatible fake judge: refused on
 * free, scored through the judge's queue and metered on pro, failed with a reason when the
 * judge gives no score or the allowance runs out, and taken over when its scorer died.
 */
let h: Harness;
let fake: FakeJudgeServer;
let experimentId: string;
let pro: Awaited<ReturnType<Harness['org']>>;

const RUBRIC = 'Is the answer correct and complete?';
const JUDGE = { name: 'quality', kind: 'judge', rubric: RUBRIC };

beforeAll(async () => {
  fake = await startFakeJudge();
  h = await startHarness({
    ARBITER_JUDGE_BASE_URL: fake.baseUrl,
    ARBITER_JUDGE_API_KEY: 'sk-judge-test',
    ARBITER_JUDGE_MODEL: 'grader-1',
  });
  pro = await h.org('judge_offline_pro');
  await setPlan(h, pro.orgId, 'pro');
  experimentId = await h.experiment(pro.admin, {
    allocation: [
      { variant: 'control', weight: 50 },
      { variant: 'short', weight: 50 },
    ],
    variants: [
      { key: 'control', prompt: 'You are helpful.' },
      { key: 'short', prompt: 'Be concise.' },
    ],
  });
});
afterAll(async () => {
  await h.close();
  await fake.close();
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.answer = scoreFromQualityMarker;
});

async function dataset(admin: string, name: string): Promise<string> {
  const created = await h.call(admin, { method: 'POST', url: '/v1/datasets', payload: { name } });
  const id = created.json().id;
  const up = await h.call(admin, {
    method: 'POST',
    url: `/v1/datasets/${id}/items`,
    payload: {
      items: [
        { id: 'a', input: 'capital of France?', expected_output: 'Paris' },
        { id: 'b', input: 'two plus two?', expected_output: '4' },
        { id: 'c', input: 'largest planet?' },
      ],
    },
  });
  expect(up.json().errors).toEqual([]);
  return id;
}

/** Outputs carry the quality the fake judge answers; c/short failed and is never judged. */
const RESULTS = [
  { item_id: 'a', variant: 'control', repeat: 0, output: 'Paris quality=0.5' },
  { item_id: 'b', variant: 'control', repeat: 0, output: 'Four quality=0.25' },
  { item_id: 'c', variant: 'control', repeat: 0, output: 'Jupiter quality=0.75' },
  { item_id: 'a', variant: 'short', repeat: 0, output: 'Paris. quality=1' },
  { item_id: 'b', variant: 'short', repeat: 0, output: { answer: 'quality=0.5' } },
  { item_id: 'c', variant: 'short', repeat: 0, error: 'timeout' },
];
const JUDGED = 5;

async function judgedRun(
  admin: string,
  secret: string,
  name: string,
  scorers: unknown[] = [JUDGE],
) {
  const ds = await dataset(admin, name);
  const created = await h.call(admin, {
    method: 'POST',
    url: `/v1/experiments/${experimentId}/offline-runs`,
    payload: { dataset_id: ds, scorers },
  });
  expect(created.statusCode, created.body).toBe(201);
  const run = created.json();
  const up = await h.ingest(secret, {
    method: 'POST',
    url: `/v1/offline-runs/${run.id}/results`,
    payload: { results: RESULTS },
  });
  expect(up.json()).toMatchObject({ accepted: RESULTS.length, errors: [] });
  return run.id as string;
}

const complete = (runId: string) =>
  h.call(pro.admin, { method: 'POST', url: `/v1/offline-runs/${runId}/complete` });
const getRun = async (runId: string) =>
  (await h.call(pro.admin, { method: 'GET', url: `/v1/offline-runs/${runId}` })).json();
const judgeScoresOf = async (runId: string) =>
  Object.fromEntries(
    (
      await h.ctx.db
        .select()
        .from(offlineScores)
        .where(and(eq(offlineScores.runId, runId), eq(offlineScores.scorer, 'quality')))
    ).map((s) => [`${s.itemId}/${s.variant}`, s.value]),
  );
const judged = (r: ChatRequest) => gradedResponse(r);

describe('a judge scorer', () => {
  it('is refused on the free plan with plan-required, storing no run', async () => {
    const free = await h.org('judge_offline_free');
    const freeExperiment = await h.experiment(free.admin);
    const ds = await dataset(free.admin, 'free-ds');
    const res = await h.call(free.admin, {
      method: 'POST',
      url: `/v1/experiments/${freeExperiment}/offline-runs`,
      payload: { dataset_id: ds, scorers: [{ name: 'exact', kind: 'exact_match' }, JUDGE] },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      type: '/problems/plan-required',
      title: 'Your plan does not include this',
      status: 400,
      detail: 'Judge scorers need the pro plan or higher; your org is on free',
      instance: `/v1/experiments/${freeExperiment}/offline-runs`,
      plan_required: 'pro',
      errors: [
        { pointer: '#/scorers/1/kind', detail: 'judge scorers need the pro plan or higher' },
      ],
    });
    const runs = await h.call(free.admin, {
      method: 'GET',
      url: `/v1/experiments/${freeExperiment}/offline-runs`,
    });
    expect(runs.json()).toEqual([]);
  });

  it('needs a rubric, and a rubric only on a judge', async () => {
    const ds = await dataset(pro.admin, 'rubric-ds');
    const res = await h.call(pro.admin, {
      method: 'POST',
      url: `/v1/experiments/${experimentId}/offline-runs`,
      payload: {
        dataset_id: ds,
        scorers: [
          { name: 'quality', kind: 'judge' },
          { name: 'exact', kind: 'exact_match', rubric: RUBRIC },
        ],
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      { pointer: '#/scorers/0/rubric', detail: 'is required for judge' },
      { pointer: '#/scorers/1/rubric', detail: 'is for judge only' },
    ]);
  });

  it('scores each output through the judge queue, 0 to 1, and meters each score', async () => {
    const before = await judgeUsed(h, pro.admin);
    const runId = await judgedRun(pro.admin, pro.secret, 'happy', [
      { name: 'exact', kind: 'exact_match' },
      JUDGE,
    ]);
    const answered = await complete(runId);
    expect(answered.statusCode, answered.body).toBe(200);
    // Built-ins at once; the judge in the background: the answer is the run in `scoring`.
    expect(answered.json()).toMatchObject({ status: 'scoring', comparisons: null });
    await h.ctx.offlineScoring.idle();
    const run = await getRun(runId);
    expect(run.status).toBe('complete');
    expect(run.scorers.map((s: { name: string }) => s.name)).toEqual([
      'exact',
      'quality',
      'error_rate',
    ]);
    expect(run.scorers[1]).toMatchObject({ kind: 'judge', rubric: RUBRIC, direction: 'increase' });
    expect(await judgeScoresOf(runId)).toEqual({
      'a/control': 0.5,
      'b/control': 0.25,
      'c/control': 0.75,
      'a/short': 1,
      'b/short': 0.5,
    });
    expect(fake.requests).toHaveLength(JUDGED);
    const a = fake.requests.find((r) => judged(r) === 'Paris quality=0.5')!;
    expect(a.body.model).toBe('grader-1');
    expect(a.body.messages[0]!.content).toContain(RUBRIC);
    expect(a.body.messages[1]!.content).toBe(
      '<prompt>\ncapital of France?\n</prompt>\n\n<expected_output>\nParis\n</expected_output>\n\n<response>\nParis quality=0.5\n</response>',
    );
    // An item without an expected output is judged without one; a JSON output as its JSON.
    const c = fake.requests.find((r) => judged(r) === 'Jupiter quality=0.75')!;
    expect(c.body.messages[1]!.content).not.toContain('<expected_output>');
    expect(fake.requests.map(judged)).toContain('{"answer":"quality=0.5"}');
    expect(run.comparisons['quality::short']).toMatchObject({
      n_items: 2,
      mean_baseline: 0.375,
      mean_treatment: 0.75,
      mean_difference: 0.375,
      test: 'paired_t',
    });
    expect(await judgeUsed(h, pro.admin)).toBe(before + JUDGED);
    const items = (
      await h.call(pro.admin, {
        method: 'GET',
        url: `/v1/offline-runs/${runId}/items?sort=item&scorer=quality`,
      })
    ).json().data;
    expect(items[0].variants.short[0].scores).toEqual({ exact: 0, quality: 1, error_rate: 0 });
    expect(items[0].difference).toBe(0.5);
    // Complete again: answered as it is, nothing judged twice.
    expect((await complete(runId)).json()).toEqual(run);
    await h.ctx.offlineScoring.idle();
    expect(fake.requests).toHaveLength(JUDGED);
  });

  it('fails the run with the reason when the judge gives no score, keeping what it scored', async () => {
    const before = await judgeUsed(h, pro.admin);
    fake.answer = (r) =>
      judged(r).startsWith('Four')
        ? { status: 400, body: '{"error":"bad"}' }
        : scoreFromQualityMarker(r);
    const runId = await judgedRun(pro.admin, pro.secret, 'judge-fails');
    await complete(runId);
    await h.ctx.offlineScoring.idle();
    const run = await getRun(runId);
    expect(run.status).toBe('failed');
    expect(run.failure_reason).toMatch(
      /^The judge gave no score for 1 outputs of scorer "quality" after 2 attempts; the first failure: the judge endpoint answered 400/,
    );
    // Tried once more in a second pass; a 400 is not retried by the client itself.
    expect(fake.requests.filter((r) => judged(r).startsWith('Four'))).toHaveLength(2);
    expect(Object.keys(await judgeScoresOf(runId))).toHaveLength(JUDGED - 1);
    expect(await judgeUsed(h, pro.admin)).toBe(before + JUDGED - 1);
  });

  it('stops at the monthly judge allowance: the calls that fit are made, then the run fails', async () => {
    const org = await h.org('judge_offline_allowance');
    await setPlan(h, org.orgId, 'pro');
    const month = usageMonth(new Date());
    await h.ctx.db
      .insert(usageCounters)
      .values({ orgId: org.orgId, month, shard: 0, judgeEvaluations: 50_000 - 2 });
    const saved = experimentId;
    experimentId = await h.experiment(org.admin, {
      allocation: [
        { variant: 'control', weight: 50 },
        { variant: 'short', weight: 50 },
      ],
      variants: [{ key: 'control' }, { key: 'short' }],
    });
    try {
      const runId = await judgedRun(org.admin, org.secret, 'allowance');
      await h.call(org.admin, { method: 'POST', url: `/v1/offline-runs/${runId}/complete` });
      await h.ctx.offlineScoring.idle();
      const run = (
        await h.call(org.admin, { method: 'GET', url: `/v1/offline-runs/${runId}` })
      ).json();
      expect(run.status).toBe('failed');
      expect(run.failure_reason).toBe(
        "The org's monthly judge allowance (50000 evaluations) ran out with 3 outputs left to judge; the scores already given are kept and counted",
      );
      expect(fake.requests).toHaveLength(2);
      expect(Object.keys(await judgeScoresOf(runId))).toHaveLength(2);
      expect(await judgeUsed(h, org.admin)).toBe(50_000);
    } finally {
      experimentId = saved;
    }
  });
});

describe('a run whose scorer died', () => {
  /** A holder that claimed the run, judged one output and died: its lease is past. */
  async function leftByDeadHolder(name: string) {
    const runId = await judgedRun(pro.admin, pro.secret, name);
    const claim = await claimScoring(h.ctx.db, runId, 'dead-process-1', new Date());
    expect(claim?.run.status).toBe('scoring');
    await h.ctx.db
      .insert(offlineScores)
      .values({ runId, scorer: 'quality', variant: 'control', itemId: 'a', repeat: 0, value: 0.9 });
    return runId;
  }
  const expireLease = (runId: string) =>
    h.ctx.db
      .update(offlineRuns)
      .set({ scoringExpiresAt: sql`now() - interval '1 second'` })
      .where(eq(offlineRuns.id, runId));

  it('is answered as it is while the lease holds, then taken over by a repeated complete', async () => {
    const runId = await leftByDeadHolder('dead-complete');
    const early = await complete(runId);
    expect(early.json().status).toBe('scoring');
    await h.ctx.offlineScoring.idle();
    expect(fake.requests).toHaveLength(0);
    await expireLease(runId);
    expect((await complete(runId)).json().status).toBe('scoring');
    await h.ctx.offlineScoring.idle();
    const run = await getRun(runId);
    expect(run.status).toBe('complete');
    // The output the dead holder judged is not judged again; its score is kept.
    expect(fake.requests).toHaveLength(JUDGED - 1);
    expect((await judgeScoresOf(runId))['a/control']).toBe(0.9);
    expect(run.comparisons['quality::short'].mean_baseline).toBeCloseTo((0.9 + 0.25) / 2, 12);
  });

  it('is taken over by the sweep each process runs, once the lease has passed', async () => {
    const runId = await leftByDeadHolder('dead-sweep');
    expect(await h.ctx.offlineScoring.sweep()).toBe(0);
    await expireLease(runId);
    expect(await h.ctx.offlineScoring.sweep()).toBe(1);
    await h.ctx.offlineScoring.idle();
    expect((await getRun(runId)).status).toBe('complete');
    expect(fake.requests).toHaveLength(JUDGED - 1);
    expect(await h.ctx.offlineScoring.sweep()).toBe(0);
  });
});
