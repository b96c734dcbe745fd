import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { experimentConfig } from '../../support/builders.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import { startReceiver, webhookHeaders } from './receiver.ts';

/** `experiment.created` and `experiment.updated`, queued with the change they tell of. */
let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;

beforeAll(async () => {
  h = await startHarness();
  acme = await h.org('acme_config_events');
});
afterAll(() => h.close());

describe('experiment changes', () => {
  it('sends created and updated once each, verified, naming the version and the fields', async () => {
    const receiver = await startReceiver();
    const endpoint = await h.call(acme.admin, {
      method: 'POST',
      url: '/v1/webhook-endpoints',
      payload: { url: receiver.url, event_types: ['experiment.created', 'experiment.updated'] },
    });
    const { secret } = endpoint.json();
    const config = experimentConfig({ name: 'told', salt: 'told-salt' });
    const created = await h.call(acme.admin, {
      method: 'POST',
      url: '/v1/experiments',
      payload: config,
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as string;
    const changed = await h.call(acme.admin, {
      method: 'PUT',
      url: `/v1/experiments/${id}`,
      payload: {
        ...config,
        variants: [config.variants![0], { key: 'treatment', prompt: 'Be brief.', variables: {} }],
      },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    await h.ctx.webhookDelivery.drain();
    await h.ctx.webhookDelivery.drain();
    const events = receiver.received.map(
      (r) =>
        new Webhook(secret).verify(r.body, webhookHeaders(r.headers)) as {
          type: string;
          data: object;
        },
    );
    // Delivery keeps no order between events (as Stripe and Svix): each names its version.
    const byType = new Map(events.map((e) => [e.type, e.data]));
    expect(events).toHaveLength(2);
    expect(byType.get('experiment.created')).toEqual({
      experiment_id: id,
      name: 'told',
      version: 1,
    });
    // `changed` is the audit entry's: the fields whose stored form differs.
    expect(byType.get('experiment.updated')).toEqual({
      experiment_id: id,
      version: 2,
      changed: expect.arrayContaining(['variants']),
    });
    await receiver.close();
  });
});
