import { and, eq, like } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookDeliveries, webhookEventKeys } from '../../../src/db/schema.ts';
import type { AcceptedEvent } from '../../../src/ingest/event-schema.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import { startReceiver, webhookHeaders } from './receiver.ts';

/**
 * `offline_run.completed` in the transaction that ends a run (gate passed or failed), and
 * `usage.threshold` in the transaction that meters the batch reaching 80 % or 100 % of the
 * month's allowance, once each per org and month however many batches reach it at once.
 */
let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;

beforeAll(async () => {
  h = await startHarness();
  acme = await h.org('acme_more_events');
});
afterAll(() => h.close());

type Verified = { type: string; data: Record<string, unknown> };

async function endpoint(eventTypes: string[]) {
  const receiver = await startReceiver();
  const res = await h.call(acme.admin, {
    method: 'POST',
    url: '/v1/webhook-endpoints',
    payload: { url: receiver.url, event_types: eventTypes },
  });
  expect(res.statusCode, res.body).toBe(201);
  const secret = res.json().secret as string;
  const events = async () => {
    await h.ctx.webhookDelivery.drain();
    return receiver.received.map(
      (r) => new Webhook(secret).verify(r.body, webhookHeaders(r.headers)) as Verified,
    );
  };
  return { receiver, events, id: res.json().id as string };
}

describe('offline_run.completed', () => {
  it('tells a completed run with its gate, and a run that could not complete', async () => {
    const hook = await endpoint(['offline_run.completed']);
    const experimentId = await h.experiment(acme.admin);
    const ds = await h.call(acme.admin, {
      method: 'POST',
      url: '/v1/datasets',
      payload: { name: 'offline-events' },
    });
    const datasetId = ds.json().id as string;
    await h.call(acme.admin, {
      method: 'POST',
      url: `/v1/datasets/${datasetId}/items`,
      payload: { items: [{ id: 'a', input: 'x', expected_output: 'Paris' }] },
    });
    const run = await h.call(acme.admin, {
      method: 'POST',
      url: `/v1/experiments/${experimentId}/offline-runs`,
      payload: { dataset_id: datasetId, scorers: [{ name: 'exact', kind: 'exact_match' }] },
    });
    expect(run.statusCode, run.body).toBe(201);
    const runId = run.json().id as string;
    const done = await h.call(acme.admin, {
      method: 'POST',
      url: `/v1/offline-runs/${runId}/complete`,
    });
    expect(done.statusCode, done.body).toBe(200);
    expect(await hook.events()).toEqual([
      {
        type: 'offline_run.completed',
        timestamp: expect.any(String),
        data: {
          run_id: runId,
          experiment_id: experimentId,
          experiment_version: 1,
          status: 'complete',
          passed: Object.values(done.json().gates as Record<string, { passed: boolean }>).every(
            (g) => g.passed,
          ),
          gates: done.json().gates,
          failure_reason: null,
          link: `/experiments/${experimentId}/offline/${runId}`,
        },
      },
    ]);
    // Completing again changes nothing and tells nothing again.
    await h.call(acme.admin, { method: 'POST', url: `/v1/offline-runs/${runId}/complete` });
    expect(await hook.events()).toHaveLength(1);
    await hook.receiver.close();
  });
});

const event = (experimentId: string, id: string): AcceptedEvent =>
  ({
    event_id: id,
    type: 'exposure',
    experiment_id: experimentId,
    user_id: `u-${id}`,
    variant: 'control',
    timestamp: new Date().toISOString(),
    received_at: new Date().toISOString(),
    is_test: false,
  }) as AcceptedEvent;

const batch = (experimentId: string, prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => event(experimentId, `${prefix}-${i}`));

async function thresholdRows(orgId: string) {
  return h.ctx.db
    .select({ key: webhookEventKeys.key })
    .from(webhookEventKeys)
    .where(and(eq(webhookEventKeys.orgId, orgId), like(webhookEventKeys.key, 'usage.threshold:%')));
}

describe('usage.threshold', () => {
  it('sends 80 % and 100 % once each under an enforced allowance, in the metering batch', async () => {
    const org = await h.org('acme_usage_enforced');
    const receiver = await startReceiver();
    const created = await h.call(org.admin, {
      method: 'POST',
      url: '/v1/webhook-endpoints',
      payload: { url: receiver.url, event_types: ['usage.threshold'] },
    });
    const secret = created.json().secret as string;
    const experimentId = await h.experiment(org.admin);
    const month = '2031-05';
    const now = h.ctx.clock.now();
    const append = (prefix: string, n: number) =>
      h.ctx.eventLog.append({
        orgId: org.orgId,
        events: batch(experimentId, prefix, n),
        month,
        allowance: 10,
        usage: { allowance: 10, now },
      });
    expect((await append('a', 7)).appended).toHaveLength(7);
    expect(await thresholdRows(org.orgId)).toEqual([]);
    // Two batches at once both past 80 %: one event; the second also reaches 100 % (and is cut).
    await Promise.all([append('b', 1), append('c', 1)]);
    await append('d', 5);
    await append('e', 3);
    await h.ctx.webhookDelivery.drain();
    const got = receiver.received.map(
      (r) => new Webhook(secret).verify(r.body, webhookHeaders(r.headers)) as Verified,
    );
    expect(got.map((e) => e.data).sort((a, b) => Number(a.percent) - Number(b.percent))).toEqual([
      { metric: 'events', percent: 80, month, used: 8, allowance: 10 },
      { metric: 'events', percent: 100, month, used: 10, allowance: 10 },
    ]);
    expect(got.every((e) => e.type === 'usage.threshold')).toBe(true);
    expect((await thresholdRows(org.orgId)).map((r) => r.key).sort()).toEqual([
      `usage.threshold:${org.orgId}:${month}:100`,
      `usage.threshold:${org.orgId}:${month}:80`,
    ]);
    await receiver.close();
  });

  it('sends each once where overage is billed (no lock), whichever batch sees it first', async () => {
    const org = await h.org('acme_usage_overage');
    const receiver = await startReceiver();
    await h.call(org.admin, {
      method: 'POST',
      url: '/v1/webhook-endpoints',
      payload: { url: receiver.url },
    });
    const experimentId = await h.experiment(org.admin);
    const month = '2031-06';
    const now = h.ctx.clock.now();
    const append = (prefix: string, n: number) =>
      h.ctx.eventLog.append({
        orgId: org.orgId,
        events: batch(experimentId, prefix, n),
        month,
        allowance: null,
        usage: { allowance: 10, now },
      });
    await Promise.all([append('a', 4), append('b', 4), append('c', 4), append('d', 4)]);
    await append('e', 1);
    await h.ctx.webhookDelivery.drain();
    const sent = await h.ctx.db
      .select({ type: webhookDeliveries.eventType, body: webhookDeliveries.body })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.orgId, org.orgId));
    const percents = sent
      .filter((s) => s.type === 'usage.threshold')
      .map((s) => JSON.parse(s.body).data.percent)
      .sort((a, b) => a - b);
    expect(percents).toEqual([80, 100]);
    const told = receiver.received.filter((r) => JSON.parse(r.body).type === 'usage.threshold');
    expect(told).toHaveLength(2);
    await receiver.close();
  });

  it('sends nothing below 80 %', async () => {
    const org = await h.org('acme_usage_quiet');
    const experimentId = await h.experiment(org.admin);
    await h.ctx.eventLog.append({
      orgId: org.orgId,
      events: batch(experimentId, 'q', 7),
      month: '2031-07',
      allowance: 10,
      usage: { allowance: 10, now: h.ctx.clock.now() },
    });
    expect(await thresholdRows(org.orgId)).toEqual([]);
  });
});
