import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Arbiter, type NodeArbiterOptions } from '../src/index.ts';
import { ExposureDedup } from '../src/internal/exposure-dedup.ts';
import { DAY_MS } from '../src/internal/utc-day.ts';
import { type FakeArbiter, startFakeArbiter } from './support/fake-arbiter.ts';
import { configOf, twoArms } from './support/fixtures.ts';
import { memoryLogger } from './support/logger.ts';
import { recordingFetch } from './support/scenarios.ts';
import { until } from './support/wait.ts';

const EXPERIMENT_ID = '0b6f1c9e-7c1a-4d3e-9a43-0c1a2b3c4d5e';

describe('ExposureDedup', () => {
  it('says first once per fingerprint and day; another variant half is another fingerprint', () => {
    const table = new ExposureDedup(1_000);
    expect(table.firstOn(1, 42, 7)).toBe(true);
    expect(table.firstOn(1, 42, 7)).toBe(false);
    expect(table.firstOn(1, 42, 8)).toBe(true);
    expect(table.firstOn(1, 43, 7)).toBe(true);
    expect(table.size).toBe(3);
    // (0, 0) marks an empty slot inside the table; it is a fingerprint like any other outside.
    expect(table.firstOn(1, 0, 0)).toBe(true);
    expect(table.firstOn(1, 0, 0)).toBe(false);
    // Unsigned halves (as the hash gives them) and their signed forms are the same bits.
    expect(table.firstOn(1, 0xffffffff, 0x80000000)).toBe(true);
    expect(table.firstOn(1, -1, -0x80000000)).toBe(false);
  });

  it('forgets everything on a new day and starts small again', () => {
    const table = new ExposureDedup(1 << 20);
    const firsts = (day: number) => {
      let count = 0;
      for (let i = 0; i < 50_000; i++) if (table.firstOn(day, i * 2_654_435_761, i)) count++;
      return count;
    };
    expect(firsts(10)).toBe(50_000);
    const grown = table.bytes;
    expect(grown).toBeGreaterThanOrEqual(50_000 * 8);
    expect(table.firstOn(11, 12_345, -1)).toBe(true);
    expect(table.size).toBe(1);
    expect(table.bytes).toBeLessThan(grown / 10);
    expect(firsts(11)).toBe(50_000);
    expect(firsts(11)).toBe(0);
  });

  it('remembers up to its capacity, then is cleared: memory stays bounded', () => {
    const capacity = 1_000;
    const table = new ExposureDedup(capacity);
    const fingerprint = (i: number): [number, number] => [Math.imul(i, 0x9e3779b1), i];
    for (let i = 0; i < capacity; i++) expect(table.firstOn(1, ...fingerprint(i))).toBe(true);
    for (let i = 0; i < capacity; i++) expect(table.firstOn(1, ...fingerprint(i))).toBe(false);
    const full = table.bytes;
    // 8 bytes a slot, 8/7 slots a fingerprint.
    expect(full).toBe(Math.ceil((capacity * 8) / 7) * 8);
    expect(table.firstOn(1, ...fingerprint(capacity))).toBe(true);
    expect(table.size).toBe(1);
    expect(table.firstOn(1, ...fingerprint(0))).toBe(true);
    for (let i = 0; i < 20 * capacity; i++) table.firstOn(1, ...fingerprint(i));
    expect(table.bytes).toBe(full);
    expect(table.size).toBeLessThanOrEqual(capacity);
  });

  it('holds a million fingerprints without a clear', () => {
    const table = new ExposureDedup(1 << 20);
    const n = 1 << 20;
    for (let i = 0; i < n; i++) table.firstOn(3, Math.imul(i, 0x85ebca6b) ^ (i >>> 7), i);
    expect(table.size).toBe(n);
    let again = 0;
    for (let i = 0; i < n; i++)
      if (table.firstOn(3, Math.imul(i, 0x85ebca6b) ^ (i >>> 7), i)) again++;
    expect(again).toBe(0);
    expect(table.bytes).toBeLessThanOrEqual(Math.ceil((n * 8) / 7) * 8);
  });

  it('works at a capacity of one', () => {
    const table = new ExposureDedup(1);
    expect(table.firstOn(1, 5, 5)).toBe(true);
    expect(table.firstOn(1, 5, 5)).toBe(false);
    expect(table.firstOn(1, 6, 6)).toBe(true);
    expect(table.firstOn(1, 5, 5)).toBe(true);
  });
});

describe('exposures from assign, one per user, experiment, variant and UTC day', () => {
  let fake: FakeArbiter;
  const clients: Arbiter[] = [];
  beforeAll(async () => {
    fake = await startFakeArbiter({ config: configOf(1, twoArms()) });
  });
  afterEach(async () => {
    vi.useRealTimers();
    await Promise.all(clients.splice(0).map((c) => c.close()));
    fake.setConfig(configOf(1, twoArms()));
  });
  afterAll(() => fake.close());

  function client(extra: NodeArbiterOptions = {}): Arbiter {
    const c = new Arbiter({
      apiKey: fake.apiKey,
      baseUrl: fake.baseUrl,
      logger: memoryLogger(),
      flushIntervalMs: 3_600_000,
      pollIntervalMs: 3_600_000,
      ...extra,
    });
    clients.push(c);
    return c;
  }

  it('sends one exposure a day, and again on the next UTC day', async () => {
    // Only the clock and timers are faked, and the fake clock follows the real one, so the
    // HTTP exchanges with the fake server run as they do.
    vi.useFakeTimers({
      toFake: ['Date', 'setTimeout', 'clearTimeout'],
      now: Date.UTC(2026, 10, 25, 23, 59, 30),
      shouldAdvanceTime: true,
    });
    const sent = recordingFetch();
    const c = client({ fetch: sent.fetch });
    await c.ready();
    for (let i = 0; i < 3; i++) {
      c.assign('checkout-prompt', 'user-1');
      c.getVariables('checkout-prompt', 'user-2', {});
    }
    await c.flush();
    expect(sent.events().map((e) => e.user_id)).toEqual(['user-1', 'user-2']);
    // Past midnight: the client notices at its next timer, within a minute.
    vi.advanceTimersByTime(61_000);
    expect(Date.now()).toBeGreaterThan(Date.UTC(2026, 10, 26));
    for (let i = 0; i < 3; i++) {
      c.assign('checkout-prompt', 'user-1');
      c.assign('checkout-prompt', 'user-2');
    }
    await c.flush();
    const events = sent.events();
    expect(events.map((e) => e.user_id)).toEqual(['user-1', 'user-2', 'user-1', 'user-2']);
    const days = events.map((e) => Math.floor(Date.parse(e.timestamp) / DAY_MS));
    expect(days[2]).toBe((days[0] as number) + 1);
    expect(events[2]?.variant).toBe(events[0]?.variant);
  });

  it('queues the exposure of an assign before the events tracked after it', async () => {
    const sent = recordingFetch();
    const c = client({ fetch: sent.fetch });
    await c.ready();
    for (const user of ['u1', 'u2', 'u3']) {
      c.assign('checkout-prompt', user);
      c.track('business_event', {
        experiment_id: 'checkout-prompt',
        user_id: user,
        business_metric: 'revenue',
        value: 1,
      });
    }
    await c.flush();
    const order = sent.events().map((e) => `${e.type}:${e.user_id}`);
    expect(order).toEqual([
      'exposure:u1',
      'business_event:u1',
      'exposure:u2',
      'business_event:u2',
      'exposure:u3',
      'business_event:u3',
    ]);
    const [exposure, conversion] = sent.events();
    expect(Date.parse(exposure?.timestamp ?? '')).toBeLessThanOrEqual(
      Date.parse(conversion?.timestamp ?? ''),
    );
  });

  it('sends again when the user gets another variant', async () => {
    const sent = recordingFetch();
    const c = client({ fetch: sent.fetch, pollIntervalMs: 20 });
    await c.ready();
    let user = '';
    for (let i = 0; user === ''; i++) {
      if (c.assign('checkout-prompt', `user-${i}`) === 'control') user = `user-${i}`;
    }
    c.assign('checkout-prompt', user);
    // Everyone to concise, as new weights would move some users.
    fake.setConfig(configOf(2, twoArms({ split: 0 })));
    await until(() => c.assign('checkout-prompt', user) === 'concise');
    c.assign('checkout-prompt', user);
    await c.flush();
    const mine = sent.events().filter((e) => e.user_id === user);
    expect(mine.map((e) => e.variant)).toEqual(['control', 'concise']);
  });

  it('with the table full, forgets everyone and sends each once more', async () => {
    const sent = recordingFetch();
    const c = client({ fetch: sent.fetch, exposureDedupCapacity: 3 });
    await c.ready();
    for (const user of ['a', 'b', 'c', 'a', 'b', 'c']) c.assign('checkout-prompt', user);
    c.assign('checkout-prompt', 'd');
    for (const user of ['a', 'd', 'a']) c.assign('checkout-prompt', user);
    await c.flush();
    expect(sent.events().map((e) => e.user_id)).toEqual(['a', 'b', 'c', 'd', 'a']);
  });

  it('takes exposureDedupCapacity as a whole number of at least 1, the default when not a number', async () => {
    const cases: [number, string[]][] = [
      [0, ['a', 'b', 'a']],
      [-5, ['a', 'b', 'a']],
      [1.5, ['a', 'b', 'a']],
      [2.5, ['a', 'b']],
      [Number.NaN, ['a', 'b']],
    ];
    for (const [capacity, expected] of cases) {
      const sent = recordingFetch();
      const c = client({ fetch: sent.fetch, exposureDedupCapacity: capacity });
      await c.ready();
      for (const user of ['a', 'b', 'a']) c.assign('checkout-prompt', user);
      await c.flush();
      expect(
        sent.events().map((e) => e.user_id),
        String(capacity),
      ).toEqual(expected);
    }
  });
});

describe('a full event queue drops exposures first', () => {
  let fake: FakeArbiter;
  const clients: Arbiter[] = [];
  beforeAll(async () => {
    fake = await startFakeArbiter({ config: configOf(1, twoArms()) });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });
  afterAll(() => fake.close());

  it('keeps a model_call or business_event arriving at a queue full of exposures, drops an exposure', async () => {
    const sent = recordingFetch();
    const logger = memoryLogger();
    const c = new Arbiter({
      apiKey: fake.apiKey,
      baseUrl: fake.baseUrl,
      fetch: sent.fetch,
      logger,
      flushIntervalMs: 3_600_000,
      queueCapacity: 3,
    });
    clients.push(c);
    await c.ready();
    for (const user of ['u1', 'u2', 'u3']) c.assign('checkout-prompt', user);
    expect(c.stats()).toMatchObject({ queued: 3, dropped: 0 });
    // A new user's exposure finds the queue full: it is the one dropped.
    c.assign('checkout-prompt', 'u4');
    expect(c.stats()).toMatchObject({ queued: 3, dropped: 1 });
    c.track('business_event', {
      experiment_id: 'checkout-prompt',
      user_id: 'u1',
      business_metric: 'revenue',
      value: 3,
    });
    await c.interceptModelCall('checkout-prompt', 'u2', async () => ({ model: 'm' }));
    // The model call's own exposure found the queue full too.
    expect(c.stats()).toMatchObject({ queued: 3, dropped: 4 });
    await c.flush();
    expect(sent.events().map((e) => `${e.type}:${e.user_id}`)).toEqual([
      'exposure:u3',
      'business_event:u1',
      'model_call:u2',
    ]);
    expect(logger.lines.filter((l) => l.includes('event queue full'))).toHaveLength(1);
    expect(c.stats()).toMatchObject({ queued: 0, sent: 3, dropped: 4 });
  });

  it('drops an arriving event when the full queue holds no exposure', async () => {
    const sent = recordingFetch();
    const c = new Arbiter({
      apiKey: fake.apiKey,
      baseUrl: fake.baseUrl,
      fetch: sent.fetch,
      logger: memoryLogger(),
      flushIntervalMs: 3_600_000,
      queueCapacity: 2,
      trackExposures: false,
    });
    clients.push(c);
    await c.ready();
    for (const value of [1, 2, 3]) {
      c.track('business_event', {
        experiment_id: EXPERIMENT_ID,
        user_id: 'u1',
        business_metric: 'revenue',
        value,
      });
    }
    expect(c.stats()).toMatchObject({ queued: 2, dropped: 1 });
    await c.flush();
    expect(sent.events().map((e) => e.value)).toEqual([1, 2]);
  });
});
