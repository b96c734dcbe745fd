import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventBodySchema } from '../../../src/domain/outbound-webhooks/event-schemas.ts';
import {
  WEBHOOK_EVENT_TYPES,
  type WebhookEventType,
} from '../../../src/domain/outbound-webhooks/event-types.ts';
import { slackBody } from '../../../src/domain/outbound-webhooks/slack.ts';
import { checkSlackUrl } from '../../../src/domain/outbound-webhooks/url-policy.ts';
import { DomainError } from '../../../src/domain/outcomes.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import { startReceiver } from './receiver.ts';

/**
 * Slack endpoints: a readable Block Kit message per event type (the checked-in
 * slack-bodies.json holds each), sent unsigned to a Slack incoming-webhook URL.
 */
const EXP = '0b9a4f8e-1c1d-4c55-9a1e-3b7a1d2c4e5f';
const RUN = '5d0c7a52-8a3e-4b0f-9d3c-2f1e0a9b8c7d';
const link = `/experiments/${EXP}/results?run=2026-11-28`;
const lifecycle = { experiment_id: EXP, name: 'Shorter answers' };

/** One example `data` of each type, as the sender builds it. */
const EXAMPLES: Record<WebhookEventType, Record<string, unknown>> = {
  'results.published': {
    experiment_id: EXP,
    day: '2026-11-28',
    final: false,
    recommendation: 'ship',
    treatment: 'short',
    violations: 0,
    link,
  },
  'results.halted': {
    experiment_id: EXP,
    day: '2026-11-28',
    final: false,
    recommendation: 'halted',
    treatment: null,
    violations: 0,
    link,
  },
  'guardrail.violated': {
    experiment_id: EXP,
    run: '2026-11-28',
    metric: 'latency_p95 <fast> & cheap',
    treatment: 'short',
    link,
  },
  'experiment.created': { ...lifecycle, version: 1, status: 'draft' },
  'experiment.updated': { experiment_id: EXP, version: 3, changed: ['allocation', 'metrics'] },
  'experiment.started': { ...lifecycle, from: 'draft', to: 'running' },
  'experiment.stopped': {
    ...lifecycle,
    from: 'running',
    to: 'stopped',
    conclusion: 'ship',
    variant: 'short',
    reason: 'faster and no worse',
  },
  'experiment.archived': { ...lifecycle, from: 'stopped', to: 'archived' },
  'experiment.rollout_advanced': {
    ...lifecycle,
    from_step: 1,
    step: 2,
    steps: 4,
    coverage: 0.25,
    version: 5,
  },
  'rollout.paused': { ...lifecycle, step: 2, by: 'guard', reason: 'error_rate worse' },
  'experiment.rolled_back': {
    ...lifecycle,
    step: 2,
    reason: 'error_rate worse for treatment',
    coverage: 0.25,
    evaluation_id: RUN,
    srm_p: 0.41,
    guardrails: [
      {
        metric: 'error_rate',
        treatment: 'short',
        direction: 'decrease',
        effect: 0.04,
        ci_low: 0.021,
        ci_high: 0.059,
        p_value: 0.0004,
        n_control: 1200,
        n_treatment: 1190,
        worse: true,
      },
    ],
  },
  'offline_run.completed': {
    run_id: RUN,
    experiment_id: EXP,
    experiment_version: 2,
    status: 'complete',
    passed: false,
    gates: {
      long: { passed: true, reasons: [] },
      short: { passed: false, reasons: ['cost is not non-inferior'] },
    },
    failure_reason: null,
    link: `/experiments/${EXP}/offline/${RUN}`,
  },
  'usage.threshold': {
    metric: 'events',
    percent: 80,
    month: '2026-11',
    used: 40_000,
    allowance: 50_000,
  },
  'webhook_endpoint.test': { endpoint_id: RUN, message: 'A test event from Arbiter' },
};

const bodyOf = (type: WebhookEventType) =>
  JSON.stringify({ type, timestamp: '2026-11-29T06:00:00.000Z', data: EXAMPLES[type] });

describe('the Slack message of each event type', () => {
  it('is one per type, each example a valid event body', async () => {
    for (const type of WEBHOOK_EVENT_TYPES) {
      expect([...Value.Errors(eventBodySchema(type), JSON.parse(bodyOf(type)))]).toEqual([]);
    }
    const messages = Object.fromEntries(
      WEBHOOK_EVENT_TYPES.map((type) => [
        type,
        JSON.parse(slackBody(bodyOf(type), 'https://arbiter.example.com/')),
      ]),
    );
    await expect(`${JSON.stringify(messages, null, 2)}\n`).toMatchFileSnapshot(
      './slack-bodies.json',
    );
  });

  it('says what happened and links to the page, escaping text Slack reads as markup', () => {
    const msg = JSON.parse(slackBody(bodyOf('guardrail.violated'), 'https://a.example/dash/'));
    const texts = JSON.stringify(msg.blocks);
    expect(msg.text).toContain('Guardrail latency_p95 &lt;fast&gt; &amp; cheap violated');
    expect(texts).toContain(`<https://a.example/dash${link}|Open in Arbiter>`);
    const unlinked = JSON.parse(slackBody(bodyOf('results.published'), null));
    expect(JSON.stringify(unlinked.blocks)).toContain(`Open the dashboard at \`${link}\``);
    expect(JSON.stringify(unlinked.blocks)).toContain('*Recommendation:* ship');
  });

  it('takes only a Slack incoming-webhook URL unless private addresses are allowed', () => {
    expect(checkSlackUrl('https://hooks.slack.com/services/T0/B0/x', false)).toBe(
      'https://hooks.slack.com/services/T0/B0/x',
    );
    expect(() => checkSlackUrl('https://example.com/hook', false)).toThrow(DomainError);
    expect(checkSlackUrl('http://127.0.0.1:9/hook', true)).toBe('http://127.0.0.1:9/hook');
  });
});

describe('a slack endpoint', () => {
  let h: Harness;
  let acme: Awaited<ReturnType<Harness['org']>>;
  beforeAll(async () => {
    h = await startHarness();
    acme = await h.org('acme_slack');
  });
  afterAll(() => h.close());

  it('gets the Block Kit message, unsigned, and is listed with its kind', async () => {
    const receiver = await startReceiver();
    const created = await h.call(acme.admin, {
      method: 'POST',
      url: '/v1/webhook-endpoints',
      payload: { url: receiver.url, kind: 'slack' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const { id, kind } = created.json();
    expect(kind).toBe('slack');
    const sent = await h.call(acme.admin, {
      method: 'POST',
      url: `/v1/webhook-endpoints/${id}/test`,
    });
    expect(sent.statusCode).toBe(202);
    await h.ctx.webhookDelivery.drain();
    expect(receiver.received).toHaveLength(1);
    const [got] = receiver.received;
    expect(got!.headers['webhook-signature']).toBeUndefined();
    expect(JSON.parse(got!.body)).toMatchObject({
      text: 'A test event from Arbiter',
      blocks: expect.arrayContaining([expect.objectContaining({ type: 'section' })]),
    });
    const listed = await h.call(acme.admin, { method: 'GET', url: '/v1/webhook-endpoints' });
    expect(listed.json().map((e: { kind: string }) => e.kind)).toEqual(['slack']);
    await receiver.close();
  });

  it('refuses a kind it does not know with a 400 problem', async () => {
    const res = await h.call(acme.admin, {
      method: 'POST',
      url: '/v1/webhook-endpoints',
      payload: { url: 'https://hooks.slack.com/services/x', kind: 'teams' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
  });
});
