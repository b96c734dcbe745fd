import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runJudgeJob } from '../../../src/analysis/judge/judge-job.ts';
import { judgeUserValues } from '../../../src/analysis/judge/judge-values.ts';
import { judgeScores, usageCounters } from '../../../src/db/schema.ts';
import { usageMonth } from '../../../src/domain/billing/usage-month.ts';
import { createJudge } from '../../../src/integrations/judge/chat-completions-judge.ts';
import { type Judge, type JudgeCallOutcome, silentMetrics } from '../../../src/kernel/ports.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import {
  createJudgeExperiment,
  ingest,
  judgeUsed,
  md5Order,
  modelCall,
  RUBRIC,
  setPlan,
  utcDay,
} from '../../support/judge-fixtures.ts';
import {
  type ChatRequest,
  type FakeJudgeServer,
  gradedResponse,
  scoreFromQualityMarker,
  startFakeJudge,
} from '../../support/judge-server.ts';

let h: Harness;
let fake: FakeJudgeServer;
let judge: Judge;
let acme: Awaited<ReturnType<Harness['org']>>;
let experimentId: string;
const day1 = utcDay(3);
const day2 = utcDay(2);
const eligible: string[] = [];
const now = () => new Date();
const judgedId = (r: ChatRequest) => /id=(\S+)/.exec(gradedResponse(r))?.[1];
/** The experiment's scores on every shard (the database alone without shards). */
const scoresOf = async (experiment: string) =>
  (
    await Promise.all(
      h.ctx.shards.all.map((s) =>
        s.db.select().from(judgeScores).where(eq(judgeScores.experimentId, experiment)),
      ),
    )
  ).flat();

/** Eight users, two calls each (one per day); treatment answers grade higher. */
function quality(user: number, call: number): number {
  return Number(((user < 4 ? 0.2 : 0.6) + 0.1 * call + 0.01 * user).toFixed(2));
}

beforeAll(async () => {
  fake = await startFakeJudge();
  h = await startHarness({
    ARBITER_JUDGE_BASE_URL: fake.baseUrl,
    ARBITER_JUDGE_API_KEY: 'sk-judge-test',
    ARBITER_JUDGE_MODEL: 'grader-1',
    ARBITER_JUDGE_SAMPLE_PER_RUN: '10',
  });
  judge = createJudge(h.ctx.config)!;
  acme = await h.org('acme');
  await setPlan(h, acme.orgId, 'pro');
  experimentId = await createJudgeExperiment(h, acme.admin, 'judged');
  const calls = [];
  for (let u = 0; u < 8; u++) {
    for (const [k, day] of [day1, day2].entries()) {
      const id = `mc-${u}-${k}`;
      eligible.push(id);
      calls.push(
        modelCall(
          experimentId,
          id,
          `user-${u}`,
          u < 4 ? 'control' : 'treatment',
          quality(u, k),
          `${day}T12:00:00Z`,
        ),
      );
    }
  }
  const {
    prompt: _p,
    response: _r,
    ...noText
  } = modelCall(experimentId, 'mc-no-text', 'user-0', 'control', 1, `${day1}T12:00:00Z`);
  const exposure = {
    event_id: 'ex-1',
    type: 'exposure',
    experiment_id: experimentId,
    user_id: 'user-0',
    timestamp: `${day1}T11:00:00Z`,
  };
  await ingest(h, acme.secret, [...calls, noText, exposure]);
});
afterAll(async () => {
  await h.close();
  await fake.close();
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.answer = scoreFromQualityMarker;
});

describe('runJudgeJob', () => {
  it('scores a deterministic sample, stores each score with its day and meters it', async () => {
    const result = await runJudgeJob(h.ctx, judge, { now: now() });
    expect(result).toEqual([
      { experimentId, scored: 10, failed: 0, skippedForAllowance: 0, firstFailure: null },
    ]);
    const sampled = md5Order(eligible).slice(0, 10);
    expect(fake.requests.map(judgedId).sort()).toEqual([...sampled].sort());
    for (const request of fake.requests) {
      expect(request.headers.authorization).toBe('Bearer sk-judge-test');
      expect(request.body.messages[0]?.content).toContain(RUBRIC);
      expect(request.body.messages[1]?.content).toMatch(
        /^<prompt>\nQuestion from user-\d\n<\/prompt>/,
      );
    }
    const stored = await scoresOf(experimentId);
    expect(stored.map((s) => s.eventId).sort()).toEqual([...sampled].sort());
    const [, user, call] = sampled[0]!.split('-').map(Number);
    expect(stored.find((s) => s.eventId === sampled[0])).toMatchObject({
      userId: `user-${user}`,
      variant: user! < 4 ? 'control' : 'treatment',
      day: call === 0 ? day1 : day2,
      score: quality(user!, call!),
    });
    expect(await judgeUsed(h, acme.admin)).toBe(10);
  });

  it('never re-scores: a re-run takes only the rest, a third run calls nobody', async () => {
    const second = await runJudgeJob(h.ctx, judge, { now: now() });
    expect(second[0]).toMatchObject({ scored: 6, failed: 0, skippedForAllowance: 0 });
    expect(fake.requests.map(judgedId).sort()).toEqual(md5Order(eligible).slice(10).sort());
    fake.requests.length = 0;
    const third = await runJudgeJob(h.ctx, judge, { now: now() });
    expect(third[0]).toMatchObject({ scored: 0, failed: 0, skippedForAllowance: 0 });
    expect(fake.requests).toHaveLength(0);
    expect(await scoresOf(experimentId)).toHaveLength(16);
    expect(await judgeUsed(h, acme.admin)).toBe(16);
  });

  it('stores and meters no failed evaluation, and tries it again on the next run', async () => {
    const flaky = await createJudgeExperiment(h, acme.admin, 'flaky');
    await ingest(h, acme.secret, [
      modelCall(flaky, 'fl-1', 'a', 'control', 0.5, `${day2}T10:00:00Z`),
      modelCall(flaky, 'fl-2', 'b', 'control', 0.5, `${day2}T10:00:00Z`),
      modelCall(flaky, 'fl-3', 'c', 'treatment', 0.5, `${day2}T10:00:00Z`),
      modelCall(flaky, 'fl-4', 'd', 'treatment', 0.5, `${day2}T10:00:00Z`),
    ]);
    const broken = new Set(['fl-2', 'fl-3']);
    fake.answer = (r) =>
      broken.has(judgedId(r) ?? '')
        ? { status: 500, body: '{"error":{"message":"overloaded"}}' }
        : scoreFromQualityMarker(r);
    const before = await judgeUsed(h, acme.admin);
    const counted: JudgeCallOutcome[] = [];
    const metrics = { ...silentMetrics, countJudgeCall: (o: JudgeCallOutcome) => counted.push(o) };
    const result = await runJudgeJob({ ...h.ctx, metrics }, judge, {
      experimentId: flaky,
      now: now(),
    });
    // Each call made counts once in the metrics, by its outcome.
    expect(counted.sort()).toEqual(['failed', 'failed', 'succeeded', 'succeeded']);
    expect(result).toEqual([
      {
        experimentId: flaky,
        scored: 2,
        failed: 2,
        skippedForAllowance: 0,
        firstFailure: expect.stringContaining('answered 500'),
      },
    ]);
    expect(fake.requests.every((r) => judgedId(r)?.startsWith('fl-'))).toBe(true);
    expect(await judgeUsed(h, acme.admin)).toBe(before + 2);
    fake.answer = scoreFromQualityMarker;
    fake.requests.length = 0;
    const retry = await runJudgeJob(h.ctx, judge, { experimentId: flaky, now: now() });
    expect(retry[0]).toMatchObject({ scored: 2, failed: 0 });
    expect(fake.requests.map(judgedId).sort()).toEqual(['fl-2', 'fl-3']);
    expect(await judgeUsed(h, acme.admin)).toBe(before + 4);
  });

  it('stops at the monthly allowance and scores only what fits', async () => {
    const capped = await h.org('capped');
    await setPlan(h, capped.orgId, 'pro');
    const exp = await createJudgeExperiment(h, capped.admin, 'capped-judged');
    await ingest(
      h,
      capped.secret,
      Array.from({ length: 8 }, (_, i) =>
        modelCall(
          exp,
          `cap-${i}`,
          `u${i}`,
          i % 2 ? 'treatment' : 'control',
          0.5,
          `${day2}T09:00:00Z`,
        ),
      ),
    );
    // Usage is the sum over shards: 49,997 of the pro plan's 50,000 already spent.
    const month = usageMonth(now());
    // Ingest may already have metered events on any shard, shard 0 included.
    for (const [shard, judgeEvaluations] of [
      [0, 40_000],
      [7, 9_997],
    ] as const) {
      await h.ctx.db
        .insert(usageCounters)
        .values({ orgId: capped.orgId, month, shard, judgeEvaluations })
        .onConflictDoUpdate({
          target: [usageCounters.orgId, usageCounters.month, usageCounters.shard],
          set: { judgeEvaluations },
        });
    }
    const result = await runJudgeJob(h.ctx, judge, { experimentId: exp, now: now() });
    expect(result[0]).toMatchObject({ scored: 3, failed: 0, skippedForAllowance: 5 });
    expect(fake.requests).toHaveLength(3);
    expect(await judgeUsed(h, capped.admin)).toBe(50_000);
    const [shard0] = await h.ctx.db
      .select()
      .from(usageCounters)
      .where(
        and(
          eq(usageCounters.orgId, capped.orgId),
          eq(usageCounters.month, month),
          eq(usageCounters.shard, 0),
        ),
      );
    expect(shard0?.judgeEvaluations).toBe(40_003);
    fake.requests.length = 0;
    const again = await runJudgeJob(h.ctx, judge, { experimentId: exp, now: now() });
    expect(again[0]).toMatchObject({ scored: 0, skippedForAllowance: 5 });
    expect(fake.requests).toHaveLength(0);
    expect(await scoresOf(exp)).toHaveLength(3);
  });

  it('keeps concurrent runs together within the allowance', async () => {
    const race = await h.org('race');
    await setPlan(h, race.orgId, 'pro');
    const exp = await createJudgeExperiment(h, race.admin, 'race-judged');
    await ingest(
      h,
      race.secret,
      Array.from({ length: 6 }, (_, i) =>
        modelCall(exp, `race-${i}`, `u${i}`, 'control', 0.5, `${day2}T09:00:00Z`),
      ),
    );
    await h.ctx.db
      .insert(usageCounters)
      .values({ orgId: race.orgId, month: usageMonth(now()), shard: 9, judgeEvaluations: 49_998 })
      .onConflictDoUpdate({
        target: [usageCounters.orgId, usageCounters.month, usageCounters.shard],
        set: { judgeEvaluations: 49_998 },
      });
    const runs = await Promise.all([
      runJudgeJob(h.ctx, judge, { experimentId: exp, now: now() }),
      runJudgeJob(h.ctx, judge, { experimentId: exp, now: now() }),
    ]);
    expect(runs.reduce((n, [r]) => n + (r?.scored ?? 0), 0)).toBe(2);
    expect(await scoresOf(exp)).toHaveLength(2);
    expect(await judgeUsed(h, race.admin)).toBe(50_000);
  });

  it('skips orgs whose plan has no judge allowance', async () => {
    const lapsed = await h.org('lapsed');
    await setPlan(h, lapsed.orgId, 'pro');
    const exp = await createJudgeExperiment(h, lapsed.admin, 'lapsed-judged');
    await ingest(h, lapsed.secret, [
      modelCall(exp, 'lp-1', 'u', 'control', 0.5, `${day2}T09:00:00Z`),
    ]);
    await setPlan(h, lapsed.orgId, 'free');
    const result = await runJudgeJob(h.ctx, judge, { now: now() });
    expect(result.map((r) => r.experimentId)).not.toContain(exp);
    expect(fake.requests.map(judgedId)).not.toContain('lp-1');
    expect(await runJudgeJob(h.ctx, judge, { experimentId: exp, now: now() })).toEqual([]);
    expect(await scoresOf(exp)).toHaveLength(0);
    expect(await judgeUsed(h, lapsed.admin)).toBe(0);
  });
});

describe('judgeUserValues', () => {
  it("gives each user's mean score per variant over the window", async () => {
    const both = await judgeUserValues(h.ctx.shards, experimentId, 'helpfulness', day1, day2);
    expect([...both.keys()].sort()).toEqual(['control', 'treatment']);
    for (const [variant, users] of both) {
      expect(users.map((u) => u.userId)).toEqual(
        [0, 1, 2, 3].map((i) => `user-${variant === 'control' ? i : i + 4}`),
      );
      for (const { userId, value } of users) {
        const u = Number(userId.slice(5));
        expect(value).toBeCloseTo((quality(u, 0) + quality(u, 1)) / 2, 10);
      }
    }
    const lastDay = await judgeUserValues(h.ctx.shards, experimentId, 'helpfulness', day2, day2);
    expect(lastDay.get('treatment')?.[0]).toEqual({ userId: 'user-4', value: quality(4, 1) });
    expect((await judgeUserValues(h.ctx.shards, experimentId, 'other', day1, day2)).size).toBe(0);
  });
});
