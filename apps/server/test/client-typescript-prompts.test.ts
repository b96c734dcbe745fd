/**
 * The TypeScript client (from its source) against the real server listening on a port, through
 * a prompt's life: with no experiment, 10,000 users get the production version and no exposure
 * is sent; with a running experiment on the prompt, each user gets their variant's version and
 * one exposure a day; after a stop with ship, every user gets the shipped version from the next
 * poll on, and nothing more is sent.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Arbiter } from '../../../clients/typescript/src/index.ts';
import type { ArbiterEvent } from '../../../clients/typescript/src/internal/wire.ts';
import { events } from '../src/db/schema.ts';
import { type Harness, startHarness } from './support/harness.ts';

const USERS = Array.from({ length: 10_000 }, (_, i) => `user-${i}`);
/** A hang guard for 10,000 users on a shared machine; no test asserts on how long it took. */
const HEAVY_TIMEOUT_MS = 600_000;
const PROMPT = 'support-reply';
const TEXT: Record<number, string> = { 1: 'Hello {{customer}}.', 2: 'Hi {{customer}}, briefly:' };

interface Wire {
  configStatuses: number[];
  sent: ArbiterEvent[];
}

function recordingFetch(wire: Wire): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    if (String(input).endsWith('/v1/config')) wire.configStatuses.push(res.status);
    if (String(input).endsWith('/v1/events') && res.status === 202) {
      wire.sent.push(...(JSON.parse(String(init?.body)) as { events: ArbiterEvent[] }).events);
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
const wire: Wire = { configStatuses: [], sent: [] };
const warnings: string[] = [];

/** Waits for a poll that brings a new document, then one more, so the new one is installed. */
async function nextConfig(): Promise<void> {
  const polls = wire.configStatuses.length;
  await until(() => wire.configStatuses.slice(polls, -1).includes(200));
}

const exposuresSent = () => wire.sent.filter((e) => e.type === 'exposure');

beforeAll(async () => {
  h = await startHarness();
  const baseUrl = await h.app.listen({ port: 0, host: '127.0.0.1' });
  acme = await h.org('prompt-clients');
  const call = (method: 'POST' | 'PUT', url: string, payload: object) =>
    h.call(acme.admin, { method, url, payload });
  await call('POST', '/v1/prompts', { name: PROMPT });
  for (const v of [1, 2])
    await call('POST', `/v1/prompts/${PROMPT}/versions`, {
      text: TEXT[v],
      variables: ['customer'],
    });
  const moved = await call('PUT', `/v1/prompts/${PROMPT}/labels/production`, { version: 1 });
  expect(moved.statusCode, moved.body).toBe(200);
  client = new Arbiter({
    apiKey: acme.publishable,
    baseUrl,
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

const get = (user: string) =>
  client.prompts.get(PROMPT, user, 'DEFAULT', { variables: { customer: user } });

async function storedExposures(experimentId: string) {
  return h.ctx.db
    .select({ user: events.userId, variant: events.variant })
    .from(events)
    .where(and(eq(events.experimentId, experimentId), eq(events.type, 'exposure')));
}

describe('prompts in the TypeScript client against the server', () => {
  it(
    'with no experiment, 10,000 users get the production version and no exposure is sent',
    async () => {
      const got = USERS.map(get);
      expect(new Set(got.map((p) => `${p.source} ${p.version}`))).toEqual(new Set(['label 1']));
      expect(got[42]?.text).toBe('Hello user-42.');
      await client.flush();
      expect(exposuresSent()).toEqual([]);
      expect(warnings).toEqual([]);
    },
    HEAVY_TIMEOUT_MS,
  );

  it(
    'with a running experiment, each user gets their variant’s version, one exposure a day; a ship releases it to all',
    async () => {
      const id = await h.experiment(acme.admin, {
        name: 'reply-test',
        variants: [
          { key: 'control', prompt: { name: PROMPT, version: 1 } },
          { key: 'treatment', prompt: { name: PROMPT, version: 2 } },
        ],
      });
      await nextConfig();
      const first = USERS.map(get);
      const again = USERS.map(get);
      expect(again).toEqual(first);
      for (const [i, p] of first.entries()) {
        const variant = client.assign('reply-test', USERS[i]!);
        expect(p).toMatchObject({
          source: 'experiment',
          variant,
          version: variant === 'treatment' ? 2 : 1,
        });
      }
      const server = await h.ingest(acme.secret, {
        method: 'POST',
        url: '/v1/assign',
        payload: { experiment_id: 'reply-test', user_id: 'user-7' },
      });
      expect(server.json().variant).toBe(first[7]?.variant);
      await client.flush();
      // One exposure per user for the day, however often the prompt was fetched.
      expect(exposuresSent()).toHaveLength(USERS.length);
      expect(new Set(exposuresSent().map((e) => e.user_id)).size).toBe(USERS.length);
      expect(await storedExposures(id)).toHaveLength(USERS.length);

      const stop = await h.call(acme.admin, {
        method: 'POST',
        url: `/v1/experiments/${id}/stop`,
        payload: { conclusion: 'ship', variant: 'treatment' },
      });
      expect(stop.statusCode, stop.body).toBe(200);
      await nextConfig();
      const sentBefore = wire.sent.length;
      const after = USERS.map(get);
      expect(new Set(after.map((p) => `${p.source} ${p.version}`))).toEqual(new Set(['label 2']));
      expect(after[3]?.text).toBe('Hi user-3, briefly:');
      await client.flush();
      expect(wire.sent.slice(sentBefore)).toEqual([]);
      expect(warnings).toEqual([]);
    },
    HEAVY_TIMEOUT_MS,
  );
});
