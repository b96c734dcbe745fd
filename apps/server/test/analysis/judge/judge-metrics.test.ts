import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestAll, runNightlyFor, today } from '../../support/analysis-data.ts';
import { experimentConfig, metric } from '../../support/builders.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import { setPlan } from '../../support/judge-fixtures.ts';
import { type FakeJudgeServer, startFakeJudge } from '../../support/judge-server.ts';

let judge: FakeJudgeServer;
let h: Harness;

beforeAll(async () => {
  judge = await startFakeJudge();
  h = await startHarness({
    ARBITER_JUDGE_BASE_URL: judge.baseUrl,
    ARBITER_JUDGE_API_KEY: 'sk-judge',
    ARBITER_JUDGE_SAMPLE_PER_RUN: '1000',
  });
});
afterAll(async () => {
  await h.close();
  await judge.close();
});

describe('judge metrics in the nightly run', () => {
  it('are scored by the judge model, metered, and analysed like any metric', async () => {
    const org = await h.org('judged');
    await setPlan(h, org.orgId, 'pro');
    const created = await h.call(org.admin, {
      method: 'POST',
      url: '/v1/experiments',
      payload: experimentConfig({
        name: 'judged-prompt',
        salt: 'judged',
        metrics: [
          { ...metric('quality', 'judge', 'welch_t'), rubric: 'Rate helpfulness from 0 to 1.' },
        ],
      }),
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().id;
    const ts = new Date().toISOString();
    const events: object[] = [];
    for (let u = 0; u < 600; u++) {
      const variant = u % 2 === 0 ? 'control' : 'treatment';
      const quality = (variant === 'treatment' ? 0.8 : 0.6) + ((u % 5) - 2) / 50;
      events.push({
        event_id: `jx-${u}`,
        type: 'exposure',
        experiment_id: id,
        user_id: `j${u}`,
        timestamp: ts,
        variant,
      });
      events.push({
        event_id: `jm-${u}`,
        type: 'model_call',
        experiment_id: id,
        user_id: `j${u}`,
        timestamp: ts,
        variant,
        prompt: 'Where is my order?',
        response: `It ships today. quality=${quality}`,
      });
    }
    await ingestAll(h, org.secret, events);
    await runNightlyFor(h, today());
    expect(judge.requests).toHaveLength(600);
    expect(judge.requests[0]?.headers.authorization).toBe('Bearer sk-judge');
    const body = (
      await h.call(org.admin, { method: 'GET', url: `/v1/experiments/${id}/results` })
    ).json();
    const quality = body.results['quality::treatment'];
    expect(quality.n_per_arm).toEqual({ control: 300, treatment: 300 });
    expect(quality.effect).toBeCloseTo(0.2, 6);
    expect(quality.significant).toBe(true);
    const usage = (await h.call(org.admin, { method: 'GET', url: '/v1/usage' })).json();
    expect(usage.judge_evaluations).toEqual({ used: 600, included: 50_000 });
    // a re-run scores nothing again
    await runNightlyFor(h, today());
    expect(judge.requests).toHaveLength(600);
  });
});
