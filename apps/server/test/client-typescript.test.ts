/**
 * The TypeScript client (from its source) against the real server listening on a port: config
 * load, local assignment equal to POST /v1/assign, delivery of tracked events and exposures
 * into the events table, and config refresh after a PUT (by ingest ack and by polling).
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Arbiter } from '../../../clients/typescript/src/index.ts';
import type { ArbiterEvent } from '../../../clients/typescript/src/internal/wire.ts';
import { events } from '../src/db/schema.ts';
import { experimentConfig, type Harness, startHarness } from './support/harness.ts';

const USERS = Array.from({ length: 10_000 }, (_, i) => `user-${i}`);
const NAME = 'client-parity';
const PROMPTS: Record<string, string> = {
  control: 'You are a helpful assistant.',
  concise: 'Answer in one sentence.',
  formal: 'Answer formally, citing sources.',
  playful: 'Answer with a joke first.',
};
const VARIABLES: Record<string, Record<string, unknown>> = {
  control: { temperature: 0.7 },
  concise: { temperature: 0.2, max_tokens: 64 },
  formal: { temperature: 0.4, style: { register: 'formal' } },
  playful: { temperature: 1.1 },
};
const variant = (key: string) => ({ key, prompt: PROMPTS[key], variables: VARIABLES[key] });

/** Everything one client sent and received over HTTP. */
interface Wire {
  configGets: number;
  configStatuses: number[];
  sent: ArbiterEvent[];
  acks: Array<{ accepted: number; config_version: number; rejected: unknown[] }>;
}

function recordingFetch(wire: Wire): typeof fetch {
  return async (input, init) => {
    const url = String(input);
    const res = await fetch(input, init);
    if (url.endsWith('/v1/config')) {
      wire.configGets++;
      wire.configStatuses.push(res.status);
    }
    if (url.endsWith('/v1/events') && init?.method === 'POST') {
      const body = JSON.parse(String(init.body)) as { events: ArbiterEvent[] };
      if (res.status === 202) {
        wire.sent.push(...body.events);
        wire.acks.push((await res.clone().json()) as Wire['acks'][number]);
      }
    }
    return res;
  };
}

const newWire = (): Wire => ({ configGets: 0, configStatuses: [], sent: [], acks: [] });

let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
let baseUrl: string;
let experimentId: string;
let client: Arbiter;
let watcher: Arbiter;
const wire = newWire();
const watcherWire = newWire();
const warnings: string[] = [];
const logger = {
  warn: (m: string) => warnings.push(`warn: ${m}`),
  error: (m: string) => warnings.push(`error: ${m}`),
};
/** The server's answer per user before the PUT. */
const before = new Map<string, string | null>();

/**
 * A hang guard for the tests that send thousands of requests through the in-process server:
 * 8 s alone on PGlite, 170 s inside the whole test command (2026-11-26), and past 240 s in a
 * run beside other work; as the targeting parity test beside it, twice that margin and more.
 */
const HEAVY_TIMEOUT_MS = 600_000;

async function serverAssign(experiment: string, users: readonly string[]) {
  const out = new Map<string, { variant: string | null; config_version: number }>();
  for (let i = 0; i < users.length; i += 250) {
    await Promise.all(
      users.slice(i, i + 250).map(async (user) => {
        const res = await h.ingest(acme.secret, {
          method: 'POST',
          url: '/v1/assign',
          payload: { experiment_id: experiment, user_id: user },
        });
        expect(res.statusCode).toBe(200);
        out.set(user, res.json());
      }),
    );
  }
  return out;
}

async function storedEvents() {
  return h.ctx.db.select().from(events).where(eq(events.orgId, acme.orgId));
}

beforeAll(async () => {
  h = await startHarness({ ARBITER_RATE_LIMIT_SECRET_PER_MINUTE: '10000000' });
  baseUrl = await h.app.listen({ port: 0, host: '127.0.0.1' });
  acme = await h.org('acme');
  const created = await h.call(acme.admin, {
    method: 'POST',
    url: '/v1/experiments',
    payload: experimentConfig({
      name: NAME,
      salt: 'parity-salt',
      bucket_count: 10_000,
      allocation: [
        { variant: 'control', weight: 30 },
        { variant: 'concise', weight: 30 },
        { variant: 'formal', weight: 30 },
      ],
      variants: [variant('control'), variant('concise'), variant('formal')],
    }),
  });
  expect(created.statusCode).toBe(201);
  experimentId = created.json().id;
});

// Closing delivers what the clients still queue (a request per 100 events, each retried on a
// timeout), and closes the server after them: on a loaded 2-core machine, with the PostgreSQL
// pass beside other suites, that outlasted vitest's 60 s hook default once.
afterAll(async () => {
  await Promise.all([client?.close(), watcher?.close()]);
  await h?.close();
}, 180_000);

describe('TypeScript client against the server', () => {
  it('loads the config: ready() resolves true, prompts and variables are the variant’s', async () => {
    client = new Arbiter({
      apiKey: acme.publishable,
      baseUrl,
      experiments: [NAME],
      logger,
      fetch: recordingFetch(wire),
      // Refreshes must come from the ingest ack, and flushes from flush()/full batches.
      pollIntervalMs: 3_600_000,
      flushIntervalMs: 3_600_000,
    });
    // The config request cannot have been answered yet: nothing is assigned before it is.
    expect(client.assign(NAME, 'user-0')).toBeNull();
    expect(await client.ready()).toBe(true);
    expect(wire.configStatuses).toEqual([200]);

    const sample = USERS.slice(0, 200);
    const server = await serverAssign(NAME, sample);
    const seen = new Set<string | null>();
    for (const user of sample) {
      const expected = server.get(user)!.variant;
      seen.add(expected);
      const prompt = client.getPrompt(NAME, user, 'DEFAULT');
      const vars = client.getVariables(experimentId, user, { temperature: 1, max_tokens: 256 });
      if (expected === null) {
        expect(prompt).toEqual({ variant: null, prompt: 'DEFAULT', fallback: true });
        expect(vars).toEqual({ temperature: 1, max_tokens: 256 });
      } else {
        expect(prompt).toEqual({ variant: expected, prompt: PROMPTS[expected], fallback: false });
        expect(vars).toEqual({ temperature: 1, max_tokens: 256, ...VARIABLES[expected] });
      }
    }
    // The sample covers every arm and the unenrolled tenth.
    expect(seen).toEqual(new Set(['control', 'concise', 'formal', null]));
  });

  it('a client whose experiment is missing resolves ready() false', async () => {
    const other = new Arbiter({
      apiKey: acme.publishable,
      baseUrl,
      experiments: [NAME, 'no-such-experiment'],
      logger: { warn: () => {}, error: () => {} },
      trackExposures: false,
    });
    expect(await other.ready()).toBe(false);
    expect(other.assign(NAME, 'user-1')).not.toBeNull();
    await other.close();
  });

  it(
    'assign() equals POST /v1/assign for 10,000 users, by name and by id',
    async () => {
      const byName = await serverAssign(NAME, USERS);
      const byId = await serverAssign(experimentId, USERS);
      const mismatches: string[] = [];
      const counts = new Map<string | null, number>();
      for (const user of USERS) {
        const expected = byName.get(user)!.variant;
        before.set(user, expected);
        counts.set(expected, (counts.get(expected) ?? 0) + 1);
        const fromId = byId.get(user)!.variant;
        const local = client.assign(NAME, user);
        const localById = client.assign(experimentId, user);
        if (fromId !== expected || local !== expected || localById !== expected) {
          mismatches.push(`${user}: server ${expected}/${fromId}, client ${local}/${localById}`);
        }
      }
      expect(mismatches).toEqual([]);
      // 30/30/30 of 10,000 buckets; a tenth of the users are not enrolled (deterministic users).
      for (const key of ['control', 'concise', 'formal']) {
        expect(counts.get(key)).toBeGreaterThan(2_700);
        expect(counts.get(key)).toBeLessThan(3_300);
      }
      expect(counts.get(null)).toBeGreaterThan(850);
      expect(counts.get(null)).toBeLessThan(1_150);
    },
    HEAVY_TIMEOUT_MS,
  );

  it('stores every tracked event and exposure once, with its fields and original timestamp', async () => {
    const enrolled = USERS.filter((u) => before.get(u) !== null);
    client.track('business_event', {
      experiment_id: NAME,
      user_id: enrolled[0]!,
      business_metric: 'checkout',
      value: 1,
    });
    client.track('business_event', {
      experiment_id: experimentId,
      user_id: enrolled[1]!,
      business_metric: 'revenue',
      value: 19.99,
      metadata: { order: 'A-17', items: 3 },
    });
    client.track('model_call', {
      experiment_id: NAME,
      user_id: enrolled[2]!,
      latency_ms: 812.5,
      input_tokens: 120,
      output_tokens: 40,
      cost_usd: 0.0031,
      model: 'gpt-4o-mini',
      error: null,
    });
    await client.flush();
    expect(client.stats()).toMatchObject({ queued: 0, dropped: 0, spilled: 0 });
    await h.ctx.worker.foldAll();

    for (const ack of wire.acks) expect(ack.rejected).toEqual([]);
    const sentIds = new Set(wire.sent.map((e) => e.event_id));
    expect(sentIds.size).toBe(wire.sent.length);
    expect(client.stats().sent).toBe(wire.sent.length);

    // One exposure per enrolled user and UTC day (assign by name and by id share it), with its
    // variant: a run that crosses midnight between two assigns sends a second, dated the next day.
    const exposures = wire.sent.filter((e) => e.type === 'exposure');
    const perUserDay = exposures.map((e) => `${e.user_id}@${e.timestamp.slice(0, 10)}`);
    expect(new Set(perUserDay).size).toBe(perUserDay.length);
    expect(new Set(exposures.map((e) => e.user_id))).toEqual(new Set(enrolled));
    for (const e of exposures) expect(e.variant).toBe(before.get(e.user_id));
    expect(wire.sent.filter((e) => e.type !== 'exposure')).toHaveLength(3);

    const rows = await storedEvents();
    expect(rows).toHaveLength(wire.sent.length);
    const byId = new Map(rows.map((r) => [r.eventId, r]));
    expect(byId.size).toBe(rows.length);
    for (const sent of wire.sent) {
      const row = byId.get(sent.event_id);
      expect(row, sent.event_id).toBeDefined();
      expect(row).toMatchObject({
        type: sent.type,
        experimentId,
        userId: sent.user_id,
        // Exposures carry the variant; the server computes it for the others.
        variant: before.get(sent.user_id),
        isTest: false,
      });
      expect(row!.occurredAt.toISOString()).toBe(sent.timestamp);
    }
    const business = rows.filter((r) => r.type === 'business_event');
    expect(business.map((r) => [r.userId, r.businessMetric, r.value, r.metadata])).toEqual(
      expect.arrayContaining([
        [enrolled[0], 'checkout', 1, null],
        [enrolled[1], 'revenue', 19.99, { order: 'A-17', items: 3 }],
      ]),
    );
    expect(business).toHaveLength(2);
    const call = rows.find((r) => r.type === 'model_call');
    expect(call).toMatchObject({
      userId: enrolled[2],
      latencyMs: 812.5,
      inputTokens: 120,
      outputTokens: 40,
      costUsd: 0.0031,
      model: 'gpt-4o-mini',
      error: null,
    });
  });

  it(
    'a PUT raises config_version; the next ack and the poll refresh the client, which assigns by the new version',
    async () => {
      watcher = new Arbiter({
        apiKey: acme.publishable,
        baseUrl,
        experiments: [NAME],
        logger,
        fetch: recordingFetch(watcherWire),
        trackExposures: false,
        pollIntervalMs: 100,
      });
      expect(await watcher.ready()).toBe(true);
      const versionBefore = (
        await h.ingest(acme.publishable, { method: 'GET', url: '/v1/config' })
      ).json().config_version as number;

      // A fourth variant takes the 1,000 never-used buckets; the others keep theirs.
      const put = await h.call(acme.admin, {
        method: 'PUT',
        url: `/v1/experiments/${experimentId}`,
        payload: {
          allocation: [
            { variant: 'control', weight: 30 },
            { variant: 'concise', weight: 30 },
            { variant: 'formal', weight: 30 },
            { variant: 'playful', weight: 10 },
          ],
          variants: ['control', 'concise', 'formal', 'playful'].map(variant),
        },
      });
      expect(put.statusCode).toBe(200);
      const versionAfter = (
        await h.ingest(acme.publishable, { method: 'GET', url: '/v1/config' })
      ).json().config_version as number;
      expect(versionAfter).toBeGreaterThan(versionBefore);

      const after = await serverAssign(NAME, USERS);
      const newcomers = USERS.filter((u) => after.get(u)!.variant === 'playful');
      expect(newcomers.length).toBeGreaterThan(850);
      for (const user of USERS) {
        // Sticky: enrolled users keep their variant; only unenrolled ones may join the new arm.
        const was = before.get(user);
        if (was !== null) expect(after.get(user)!.variant).toBe(was);
        else expect([null, 'playful']).toContain(after.get(user)!.variant);
      }
      const probe = newcomers[0]!;

      // The client has not heard of the change: its poll is an hour away and nothing was sent.
      const configGetsBefore = wire.configGets;
      expect(client.assign(NAME, probe)).toBeNull();

      client.track('business_event', {
        experiment_id: NAME,
        user_id: probe,
        business_metric: 'checkout',
        value: 0,
      });
      await client.flush();
      expect(wire.acks.at(-1)?.config_version).toBe(versionAfter);
      await vi.waitFor(() => expect(client.assign(NAME, probe)).toBe('playful'), {
        timeout: 20_000,
        interval: 10,
      });
      expect(wire.configGets).toBe(configGetsBefore + 1);
      expect(wire.configStatuses.at(-1)).toBe(200);

      const mismatches = USERS.filter((u) => client.assign(NAME, u) !== after.get(u)!.variant);
      expect(mismatches).toEqual([]);
      expect(client.getPrompt(experimentId, probe, 'DEFAULT')).toEqual({
        variant: 'playful',
        prompt: PROMPTS.playful,
        fallback: false,
      });

      // The watcher sends nothing; its poll alone brings the new version.
      await vi.waitFor(() => expect(watcher.assign(NAME, probe)).toBe('playful'), {
        timeout: 20_000,
        interval: 10,
      });
      expect(watcherWire.sent).toEqual([]);
      // Unchanged polls cost a 304.
      await vi.waitFor(() => expect(watcherWire.configStatuses).toContain(304), {
        timeout: 20_000,
        interval: 10,
      });
      expect(
        USERS.filter((u) => watcher.assign(experimentId, u) !== after.get(u)!.variant),
      ).toEqual([]);

      // close() delivers the newcomers' exposures with their new variant.
      await client.close();
      await h.ctx.worker.foldAll();
      const rows = await storedEvents();
      expect(rows).toHaveLength(wire.sent.length);
      const newExposures = rows.filter((r) => r.type === 'exposure' && r.variant === 'playful');
      // One a newcomer and UTC day (two only for a run that crosses midnight between assigns).
      const newPerUserDay = newExposures.map(
        (r) => `${r.userId}@${r.occurredAt.toISOString().slice(0, 10)}`,
      );
      expect(new Set(newPerUserDay).size).toBe(newPerUserDay.length);
      expect(new Set(newExposures.map((r) => r.userId))).toEqual(new Set(newcomers));
      const probeEvent = rows.find((r) => r.type === 'business_event' && r.userId === probe);
      expect(probeEvent).toMatchObject({
        variant: 'playful',
        businessMetric: 'checkout',
        value: 0,
      });
      expect(warnings).toEqual([]);
    },
    HEAVY_TIMEOUT_MS,
  );
});
