/**
 * The TypeScript client (from its source) against the real server listening on a port, through
 * an experiment's lifecycle: a draft gives null and sends nothing; once an experiment is stopped
 * with a shipped variant, 10,000 users get it (with its prompt and variables) after the client's
 * next poll, and no exposure of it is sent from then on.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Arbiter } from '../../../clients/typescript/src/index.ts';
import type { ArbiterEvent } from '../../../clients/typescript/src/internal/wire.ts';
import { events } from '../src/db/schema.ts';
import { type Harness, startHarness } from './support/harness.ts';

const USERS = Array.from({ length: 10_000 }, (_, i) => `user-${i}`);
/** Users asked while the experiment runs: their exposures are the only ones it may store. */
const EARLY = USERS.slice(0, 200);
/** A hang guard for 10,000 users on a shared machine; no test asserts on how long it took. */
const HEAVY_TIMEOUT_MS = 600_000;

/** What the client sent and received over HTTP. */
interface Wire {
  configStatuses: number[];
  sent: ArbiterEvent[];
}

function recordingFetch(wire: Wire): typeof fetch {
  return async (input, init) => {
    const url = String(input);
    const res = await fetch(input, init);
    if (url.endsWith('/v1/config')) wire.configStatuses.push(res.status);
    if (url.endsWith('/v1/events') && init?.method === 'POST' && res.status === 202) {
      wire.sent.push(...(JSON.parse(String(init.body)) as { events: ArbiterEvent[] }).events);
    }
    return res;
  };
}

/** Polls until `check` holds; the test's timeout, not a deadline here, ends one that hangs. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 10));
}

let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
let client: Arbiter;
let shippedId: string;
let draftId: string;
const wire: Wire = { configStatuses: [], sent: [] };
const warnings: string[] = [];

beforeAll(async () => {
  h = await startHarness();
  const baseUrl = await h.app.listen({ port: 0, host: '127.0.0.1' });
  acme = await h.org('lifecycle-clients');
  const allocation = [
    { variant: 'control', weight: 45 },
    { variant: 'treatment', weight: 45 },
  ];
  shippedId = await h.experiment(acme.admin, { name: 'ship-me', allocation });
  draftId = await h.experiment(acme.admin, { name: 'not-yet', allocation, status: 'draft' });
  client = new Arbiter({
    apiKey: acme.publishable,
    baseUrl,
    experiments: ['ship-me', 'not-yet'],
    fetch: recordingFetch(wire),
    pollIntervalMs: 100,
    flushIntervalMs: 3_600_000,
    queueCapacity: 100_000,
    logger: {
      warn: (m: string) => warnings.push(`warn: ${m}`),
      error: (m: string) => warnings.push(`error: ${m}`),
    },
  });
  expect(await client.ready()).toBe(true);
});
afterAll(async () => {
  await client?.close();
  await h?.close();
}, 120_000);

/** The exposures the server stored for `experimentId`. */
async function storedExposures(experimentId: string) {
  return h.ctx.db
    .select({ user: events.userId, variant: events.variant })
    .from(events)
    .where(
      and(
        eq(events.orgId, acme.orgId),
        eq(events.type, 'exposure'),
        eq(events.experimentId, experimentId),
      ),
    );
}

/** The events the client sent for `experimentId` from the `from`-th one on. */
const sentFor = (experimentId: string, from = 0) =>
  wire.sent.slice(from).filter((e) => e.experiment_id === experimentId);

describe('experiment lifecycle in the TypeScript client against the server', () => {
  it(
    'a draft gives every user null and the caller defaults, and sends no exposure',
    async () => {
      const given = new Set(USERS.map((u) => client.assign('not-yet', u)));
      expect(given).toEqual(new Set([null]));
      expect(client.getPrompt('not-yet', 'user-1', 'DEFAULT')).toEqual({
        variant: null,
        prompt: 'DEFAULT',
        fallback: true,
      });
      expect(client.getVariables(draftId, 'user-1', { temperature: 1 })).toEqual({
        temperature: 1,
      });
      await client.flush();
      expect(sentFor(draftId)).toEqual([]);
      expect(await storedExposures(draftId)).toEqual([]);
    },
    HEAVY_TIMEOUT_MS,
  );

  it(
    'after a stop that ships treatment, the next poll gives it to 10,000 users and no exposure is sent',
    async () => {
      // While it runs: the users' own buckets decide, and their exposures are stored.
      const running = EARLY.map((u) => client.assign('ship-me', u));
      expect(new Set(running)).toEqual(new Set(['control', 'treatment', null]));
      await client.flush();
      const enrolled = running.filter((v) => v !== null).length;
      expect(await storedExposures(shippedId)).toHaveLength(enrolled);

      const stop = await h.call(acme.admin, {
        method: 'POST',
        url: `/v1/experiments/${shippedId}/stop`,
        payload: { conclusion: 'ship', variant: 'treatment', reason: 'concise answers won' },
      });
      expect(stop.statusCode, stop.body).toBe(200);
      expect(stop.json()).toMatchObject({
        status: 'stopped',
        stop: { conclusion: 'ship', served_variant: 'treatment' },
      });

      // The next poll that brings a new document (200), then one more: the first is installed.
      const polls = wire.configStatuses.length;
      await until(() => wire.configStatuses.slice(polls, -1).includes(200));
      const sentBefore = wire.sent.length;
      const wrong = USERS.filter((u) => client.assign('ship-me', u) !== 'treatment');
      expect(wrong).toEqual([]);
      for (const user of ['user-0', 'user-9999', EARLY[running.indexOf('control')] ?? '']) {
        expect(client.getPrompt('ship-me', user, 'DEFAULT')).toEqual({
          variant: 'treatment',
          prompt: 'Be concise.',
          fallback: false,
        });
        expect(client.getVariables(shippedId, user, {})).toEqual({ temperature: 0.2 });
      }
      const served = await h.ingest(acme.secret, {
        method: 'POST',
        url: '/v1/assign',
        payload: { experiment_id: 'ship-me', user_id: 'user-9999' },
      });
      expect(served.json()).toMatchObject({ variant: 'treatment' });

      // Nothing of the stopped experiment left the client, and the server stored nothing more.
      await client.flush();
      expect(sentFor(shippedId, sentBefore)).toEqual([]);
      expect(await storedExposures(shippedId)).toHaveLength(enrolled);
      expect(warnings).toEqual([]);
    },
    HEAVY_TIMEOUT_MS,
  );
});
