import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { experimentConfig, type Harness, startHarness } from '../../support/harness.ts';
import { judgeMetric, RUBRIC, setPlan } from '../../support/judge-fixtures.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const create = (admin: string, metrics: unknown[]) =>
  h.call(admin, {
    method: 'POST',
    url: '/v1/experiments',
    payload: experimentConfig({ name: 'quality', metrics }),
  });

describe('judge metrics and the plan', () => {
  it('refuses a judge metric on the free plan with the plan it needs', async () => {
    const free = await h.org('free-co');
    const latency = experimentConfig().metrics[0];
    const res = await create(free.admin, [latency, judgeMetric()]);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json()).toEqual({
      type: '/problems/plan-required',
      title: 'Your plan does not include this',
      status: 400,
      detail: 'Judge metrics need the pro plan or higher; your org is on free',
      instance: '/v1/experiments',
      plan_required: 'pro',
      errors: [
        { pointer: '#/metrics/1/kind', detail: 'judge metrics need the pro plan or higher' },
      ],
    });
    const usage = (await h.call(free.admin, { method: 'GET', url: '/v1/usage' })).json();
    expect(usage.judge_evaluations).toEqual({ used: 0, included: 0 });
  });

  it('accepts it on pro, where the usage shows the judge allowance', async () => {
    const pro = await h.org('pro-co');
    await setPlan(h, pro.orgId, 'pro');
    const res = await create(pro.admin, [judgeMetric()]);
    expect(res.statusCode).toBe(201);
    expect(res.json().metrics).toEqual([judgeMetric()]);
    expect(res.json().metrics[0].rubric).toBe(RUBRIC);
    const usage = (await h.call(pro.admin, { method: 'GET', url: '/v1/usage' })).json();
    expect(usage.judge_evaluations).toEqual({ used: 0, included: 50_000 });
  });

  it('needs a rubric for a judge metric', async () => {
    const pro = await h.org('pro-no-rubric');
    await setPlan(h, pro.orgId, 'pro');
    const res = await create(pro.admin, [judgeMetric('helpfulness', null)]);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      type: '/problems/validation-error',
      errors: [{ pointer: '#/metrics/0/rubric', detail: 'is required for judge metrics' }],
    });
  });
});
