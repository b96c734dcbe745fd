import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../support/harness.ts';
import { startReceiver, webhookHeaders } from './receiver.ts';

/**
 * The experiment lifecycle's events: start, stop and archive each queue one event in the
 * move's transaction; a refused move and an unarchive queue none.
 */
let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;

beforeAll(async () => {
  h = await startHarness();
  acme = await h.org('acme_lifecycle_events');
});
afterAll(() => h.close());

const move = (id: string, to: string, payload?: object) =>
  h.call(acme.admin, { method: 'POST', url: `/v1/experiments/${id}/${to}`, payload });

it('sends started, stopped (conclusion and variant) and archived, verified, once each', async () => {
  const receiver = await startReceiver();
  const created = await h.call(acme.admin, {
    method: 'POST',
    url: '/v1/webhook-endpoints',
    payload: {
      url: receiver.url,
      event_types: ['experiment.started', 'experiment.stopped', 'experiment.archived'],
    },
  });
  const { secret } = created.json();
  const id = await h.experiment(acme.admin, { status: 'draft' });
  expect((await move(id, 'start')).statusCode).toBe(200);
  expect((await move(id, 'start')).statusCode).toBe(409);
  const stop = { conclusion: 'ship', variant: 'treatment', reason: 'faster' };
  expect((await move(id, 'stop', stop)).statusCode).toBe(200);
  expect((await move(id, 'archive')).statusCode).toBe(200);
  expect((await move(id, 'unarchive')).statusCode).toBe(200);
  await h.ctx.webhookDelivery.drain();
  const events = receiver.received.map(
    (r) =>
      new Webhook(secret).verify(r.body, webhookHeaders(r.headers)) as {
        type: string;
        data: Record<string, unknown>;
      },
  );
  const byType = Object.fromEntries(events.map((e) => [e.type, e.data]));
  expect(events.map((e) => e.type).sort()).toEqual([
    'experiment.archived',
    'experiment.started',
    'experiment.stopped',
  ]);
  expect(byType['experiment.started']).toMatchObject({
    experiment_id: id,
    from: 'draft',
    to: 'running',
  });
  expect(byType['experiment.stopped']).toMatchObject({
    experiment_id: id,
    conclusion: 'ship',
    variant: 'treatment',
    reason: 'faster',
  });
  expect(byType['experiment.archived']).toMatchObject({
    experiment_id: id,
    from: 'stopped',
    to: 'archived',
  });
  expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(3);
  await receiver.close();
});
