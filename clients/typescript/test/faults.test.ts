import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NodeArbiterOptions } from '../src/index.ts';
import { Arbiter } from '../src/index.ts';
import type { ArbiterEvent } from '../src/internal/wire.ts';
import { type FakeArbiter, startFakeArbiter } from './support/fake-arbiter.ts';
import { configOf, twoArms } from './support/fixtures.ts';
import { memoryLogger } from './support/logger.ts';
import { until } from './support/wait.ts';

let fake: FakeArbiter;
let dir: string;
let storePath: string;
let logger: ReturnType<typeof memoryLogger>;
const clients: Arbiter[] = [];

beforeEach(async () => {
  fake = await startFakeArbiter({ config: configOf(1, twoArms()) });
  dir = mkdtempSync(join(tmpdir(), 'arbiter-faults-'));
  storePath = join(dir, 'spill', 'events.ndjson');
  logger = memoryLogger();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Short delays everywhere; the background interval is pushed out so only flush() sends. */
function client(extra: NodeArbiterOptions = {}): Arbiter {
  const c = new Arbiter({
    apiKey: fake.apiKey,
    baseUrl: fake.baseUrl,
    logger,
    trackExposures: false,
    offlineStorePath: storePath,
    pollIntervalMs: 3_600_000,
    flushIntervalMs: 3_600_000,
    // Long enough that a slow machine never times out a healthy request.
    requestTimeoutMs: 1_000,
    maxAttempts: 3,
    retryBaseDelayMs: 1,
    retryMaxDelayMs: 5,
    retryAfterCapMs: 20,
    ...extra,
  });
  clients.push(c);
  return c;
}

function trackSome(c: Arbiter, n: number, prefix = 'u'): void {
  for (let i = 0; i < n; i++) {
    c.track('business_event', {
      experiment_id: 'checkout-prompt',
      user_id: `${prefix}-${i}`,
      business_metric: 'revenue',
      value: i,
    });
  }
}

function spilled(): ArbiterEvent[] {
  if (!existsSync(storePath)) return [];
  return readFileSync(storePath, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as ArbiterEvent);
}

/** Every delivery carried the same ids, and each of them is stored exactly once. */
function expectSameIdsEveryTime(expectedDeliveries: number, count: number): void {
  expect(fake.deliveries).toHaveLength(expectedDeliveries);
  const [first, ...rest] = fake.deliveries;
  expect(first).toHaveLength(count);
  for (const d of rest) expect(d).toEqual(first);
  expect(fake.events.size).toBe(count);
  for (const id of first ?? []) expect(fake.events.has(id)).toBe(true);
}

describe('retries', () => {
  it('retries 500s with the same event ids and delivers once', async () => {
    const c = client();
    fake.faults.push({ kind: 'status', status: 500 }, { kind: 'status', status: 503 });
    trackSome(c, 4);
    await c.flush();
    expectSameIdsEveryTime(3, 4);
    expect(c.stats()).toMatchObject({ sent: 4, spilled: 0, dropped: 0 });
  });

  it('retries a request that times out', async () => {
    const c = client();
    fake.faults.push({ kind: 'hang' }, { kind: 'hang' });
    trackSome(c, 3);
    await c.flush();
    expectSameIdsEveryTime(3, 3);
    expect(c.stats().sent).toBe(3);
  });

  it('retries 429 (with Retry-After) and 408', async () => {
    const c = client();
    fake.faults.push(
      { kind: 'status', status: 429, retryAfter: '1' },
      { kind: 'status', status: 408 },
    );
    trackSome(c, 2);
    await c.flush();
    expectSameIdsEveryTime(3, 2);
  });

  it('resends a batch whose ack was lost; the server keeps one copy', async () => {
    const c = client();
    fake.faults.push({ kind: 'store-then-reset' });
    trackSome(c, 5);
    await c.flush();
    expectSameIdsEveryTime(2, 5);
    expect(c.stats()).toMatchObject({ sent: 5, dropped: 0 });
  });

  it('does not retry a 400: the batch is dropped with one log line', async () => {
    const c = client();
    fake.faults.push({ kind: 'status', status: 400 });
    trackSome(c, 3);
    await c.flush();
    expect(fake.deliveries).toHaveLength(1);
    expect(c.stats()).toMatchObject({ sent: 0, dropped: 3, spilled: 0 });
    expect(logger.lines.filter((l) => l.includes('dropped 3 events'))).toHaveLength(1);
  });

  it('stops after maxAttempts', async () => {
    const c = client({ maxAttempts: 2 });
    fake.faults.push(...Array(5).fill({ kind: 'status', status: 502 }));
    trackSome(c, 1);
    await c.flush();
    expect(fake.deliveries).toHaveLength(2);
    expect(c.stats().spilled).toBe(1);
  });
});

describe('offline store', () => {
  it('spills when every attempt fails, then replays with the original ids and timestamps', async () => {
    const c = client();
    fake.faults.push(...Array(3).fill({ kind: 'status', status: 503 }));
    trackSome(c, 4);
    await c.flush();
    const onDisk = spilled();
    expect(onDisk).toHaveLength(4);
    expect(fake.events.size).toBe(0);
    expect(c.stats()).toMatchObject({ spilled: 4, sent: 0, dropped: 0 });

    await c.flush();
    expect(c.stats()).toMatchObject({ replayed: 4, sent: 4 });
    for (const e of onDisk) expect(fake.events.get(e.event_id)).toEqual(e);
    expect(spilled()).toHaveLength(0);
    // Three failed attempts and the replay, all with the same ids.
    expectSameIdsEveryTime(4, 4);
  });

  it('spills when the connection is refused, and replays when the server is back', async () => {
    const c = client();
    await c.ready();
    await fake.stop();
    trackSome(c, 3);
    await c.flush();
    expect(spilled()).toHaveLength(3);
    expect(logger.lines.join('\n')).toMatch(/ECONNREFUSED|fetch failed/);
    await fake.start();
    await c.flush();
    expect(fake.events.size).toBe(3);
    expect(spilled()).toHaveLength(0);
  });

  it('survives a server that dies mid-flush: nothing lost, nothing doubled', async () => {
    const c = client({ batchSize: 2 });
    await c.ready();
    fake.faults.push({ kind: 'store-then-die' });
    trackSome(c, 6);
    await c.flush();
    // The first batch reached the store before the crash; its ack was lost, so it is spilled
    // too, with the two batches never tried.
    expect(fake.events.size).toBe(2);
    expect(spilled()).toHaveLength(6);
    await fake.start();
    await c.flush();
    expect(fake.events.size).toBe(6);
    const [crashed, ...replays] = fake.deliveries;
    expect(replays.flat()).toEqual(expect.arrayContaining(crashed ?? []));
    expect(new Set(replays.flat()).size).toBe(6);
    expect(spilled()).toHaveLength(0);
  });

  it('after a failed batch, spills the rest of the drain without trying it', async () => {
    const c = client({ batchSize: 2 });
    fake.faults.push(...Array(3).fill({ kind: 'status', status: 500 }));
    trackSome(c, 6);
    await c.flush();
    expect(fake.deliveries).toHaveLength(3);
    expect(spilled()).toHaveLength(6);
  });

  it('replays what a previous process left, discarding events older than 24 h', async () => {
    const now = Date.now();
    const event = (id: string, ageMs: number): ArbiterEvent => ({
      event_id: id,
      type: 'business_event',
      experiment_id: 'checkout-prompt',
      user_id: 'u-1',
      timestamp: new Date(now - ageMs).toISOString(),
      business_metric: 'revenue',
      value: 3,
    });
    const fresh = [event('fresh-1', 60_000), event('fresh-2', 23 * 3_600_000)];
    const stale = event('stale-1', 25 * 3_600_000);
    mkdirSync(join(dir, 'spill'), { recursive: true });
    // A line cut short by a crash mid-append is skipped.
    writeFileSync(
      storePath,
      `${[stale, ...fresh].map((e) => JSON.stringify(e)).join('\n')}\n{"event_id":"torn`,
    );
    const c = client();
    await c.flush();
    expect([...fake.events.keys()].sort()).toEqual(['fresh-1', 'fresh-2']);
    expect(fake.events.get('fresh-2')).toEqual(fresh[1]);
    expect(c.stats()).toMatchObject({ replayed: 2, expired: 1 });
    expect(logger.lines.filter((l) => l.includes('older than the 24 h'))).toHaveLength(1);
    expect(spilled()).toHaveLength(0);
  });

  it('replays in the background once the API is back', async () => {
    const c = client({ flushIntervalMs: 10 });
    fake.faults.push(...Array(3).fill({ kind: 'status', status: 500 }));
    trackSome(c, 2);
    await c.flush();
    expect(spilled()).toHaveLength(2);
    await until(() => fake.events.size === 2);
    await until(() => spilled().length === 0);
  });
});

describe('never blocks, never throws', () => {
  it('drops with one log line per batch when there is no offline store', async () => {
    const c = client({ offlineStorePath: undefined, batchSize: 3 });
    fake.faults.push(...Array(3).fill({ kind: 'status', status: 500 }));
    trackSome(c, 6);
    await c.flush();
    expect(c.stats()).toMatchObject({ dropped: 6, spilled: 0 });
    expect(logger.lines.filter((l) => l.includes('dropped 3 events'))).toHaveLength(2);
  });

  it('counts what a full queue drops, with one log line for the stretch', async () => {
    const c = client({ queueCapacity: 5 });
    trackSome(c, 8);
    expect(c.stats()).toMatchObject({ queued: 5, dropped: 3 });
    expect(logger.lines.filter((l) => l.includes('queue full'))).toHaveLength(1);
    await c.flush();
    expect(fake.events.size).toBe(5);
  });

  it('survives a fetch that throws synchronously and bad arguments', async () => {
    const c = client({
      offlineStorePath: undefined,
      fetch: () => {
        throw new TypeError('boom');
      },
    });
    expect(await c.ready()).toBe(false);
    const bad = c as unknown as {
      track(a: unknown, b: unknown): void;
      assign(a: unknown, b: unknown): unknown;
    };
    expect(() => bad.track('nonsense', {})).not.toThrow();
    expect(() => bad.track('business_event', null)).not.toThrow();
    expect(() => bad.track('business_event', { experiment_id: 'x', user_id: 'u' })).not.toThrow();
    expect(bad.assign(undefined, null)).toBeNull();
    trackSome(c, 2);
    await expect(c.flush()).resolves.toBeUndefined();
    expect(c.stats()).toMatchObject({ dropped: 2 });
  });

  it('keeps serving the last config while the API is unreachable, logging once', async () => {
    let configFetches = 0;
    const c = client({
      pollIntervalMs: 5,
      maxAttempts: 1,
      fetch: (input, init) => {
        if (init?.method === 'GET') configFetches++;
        return fetch(input, init);
      },
    });
    expect(await c.ready()).toBe(true);
    const before = c.assign('checkout-prompt', 'user-7');
    expect(before).not.toBeNull();
    await fake.stop();
    const down = configFetches;
    await until(() => configFetches >= down + 5);
    expect(c.assign('checkout-prompt', 'user-7')).toBe(before);
    expect(logger.lines.filter((l) => l.includes('config refresh failed'))).toHaveLength(1);
    const served = fake.configRequests.length;
    await fake.start();
    await until(() => fake.configRequests.length > served);
    await until(() => logger.lines.some((l) => l.includes('reachable again')));
    expect(c.assign('checkout-prompt', 'user-7')).toBe(before);
  });

  it('logs one line for one outage whose errors differ from poll to poll', async () => {
    let failing = false;
    let failures = 0;
    const c = client({
      pollIntervalMs: 5,
      maxAttempts: 1,
      fetch: (input, init) => {
        if (failing && init?.method === 'GET') {
          failures++;
          // A reset connection first, refused ones after: each poll's detail is its own.
          return Promise.reject(new TypeError(`fetch failed (attempt ${failures})`));
        }
        return fetch(input, init);
      },
    });
    expect(await c.ready()).toBe(true);
    failing = true;
    await until(() => failures >= 5);
    const logged = logger.lines.filter((l) => l.includes('config refresh failed'));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain('attempt 1');
    failing = false;
    await until(() => logger.lines.some((l) => l.includes('reachable again')));
  });

  it('close() delivers what is queued', async () => {
    const c = client();
    trackSome(c, 7);
    await c.close();
    expect(fake.events.size).toBe(7);
    c.track('business_event', {
      experiment_id: 'x',
      user_id: 'u',
      business_metric: 'm',
      value: 1,
    });
    expect(c.stats()).toMatchObject({ queued: 0, dropped: 1 });
  });
});
