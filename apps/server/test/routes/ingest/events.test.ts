import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events, usageCounters } from '../../../src/db/schema.ts';
import { usageMonth } from '../../../src/domain/billing/usage-month.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import { scaleOutMode } from '../../support/scale-out-env.ts';
import { storedEvents } from '../../support/stored-events.ts';

let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
let experimentId: string;
const now = () => new Date().toISOString();
// A whole second after the experiment is made (POST /v1/events takes no event from before the
// UTC day it was created, nor older than 25 h).
let wholeSecond: string;

beforeAll(async () => {
  // Limits stated: this file tests the free allowance, which applies by default only with billing.
  h = await startHarness({
    ARBITER_RATE_LIMIT_PUBLISHABLE_PER_MINUTE: '40',
    ARBITER_ENFORCE_LIMITS: 'true',
  });
  acme = await h.org('acme');
  experimentId = await h.experiment(acme.admin, { name: 'ingest-exp' });
  wholeSecond = new Date(Math.ceil(Date.now() / 1000) * 1000).toISOString();
});
afterAll(() => h.close());

const send = (key: string, list: unknown[]) =>
  h.ingest(key, { method: 'POST', url: '/v1/events', payload: { events: list } });
const exposure = (id: string, user = 'u1') => ({
  event_id: id,
  type: 'exposure',
  experiment_id: experimentId,
  user_id: user,
  timestamp: now(),
});

async function stored(eventId: string) {
  const [row] = await storedEvents(h, eq(events.eventId, eventId));
  return row;
}

describe('POST /v1/events', () => {
  it('acknowledges 202 once stored and queued; every type is stored with its fields', async () => {
    const res = await send(acme.secret, [
      exposure('e-1', 'alice'),
      {
        event_id: 'm-1',
        type: 'model_call',
        experiment_id: 'ingest-exp',
        user_id: 'alice',
        timestamp: wholeSecond.replace('.000Z', 'Z'),
        latency_ms: 812.5,
        input_tokens: 120,
        output_tokens: 40,
        cost_usd: 0.0031,
        model: 'gpt-4o-mini',
        error: null,
        prompt: 'Hi',
        response: 'Hello',
      },
      {
        event_id: 'b-1',
        type: 'business_event',
        experiment_id: experimentId,
        user_id: 'alice',
        timestamp: now(),
        variant: 'treatment',
        business_metric: 'revenue',
        value: 19.99,
      },
    ]);
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ accepted: 3, rejected: [] });
    // Stored at acceptance; the worker then folds the three into the daily aggregates. On
    // Kafka what waits is the one envelope the three went in (one user, so one partition).
    expect(await h.ctx.eventLog.depth()).toBe(scaleOutMode() ? 1 : 3);
    expect(await h.ctx.worker.foldAll()).toBe(3);
    expect(await h.ctx.eventLog.depth()).toBe(0);
    const call = await stored('m-1');
    expect(call).toMatchObject({
      type: 'model_call',
      experimentId,
      latencyMs: 812.5,
      inputTokens: 120,
      model: 'gpt-4o-mini',
      prompt: 'Hi',
      response: 'Hello',
      isTest: false,
    });
    expect(call?.occurredAt.toISOString()).toBe(wholeSecond);
    expect(await stored('b-1')).toMatchObject({
      variant: 'treatment',
      businessMetric: 'revenue',
      value: 19.99,
    });
  });

  it('computes the variant with the frozen bucketing when the event has none', async () => {
    const assigned = (
      await h.ingest(acme.secret, {
        method: 'POST',
        url: '/v1/assign',
        payload: { experiment_id: experimentId, user_id: 'bob' },
      })
    ).json();
    await send(acme.secret, [exposure('e-bob', 'bob')]);
    await h.ctx.worker.foldAll();
    expect((await stored('e-bob'))?.variant).toBe(assigned.variant);
  });

  it('checks events one by one: invalid ones are reported by index, valid ones kept', async () => {
    const res = await send(acme.secret, [
      exposure('ok-1'),
      { ...exposure('bad-1'), timestamp: 'yesterday' },
      { ...exposure('bad-2'), experiment_id: 'no-such-experiment' },
      { ...exposure('bad-3'), type: 'click' },
      { ...exposure('bad-4'), variant: 'ghost' },
      {
        event_id: 'bad-5',
        type: 'business_event',
        experiment_id: experimentId,
        user_id: 'u',
        timestamp: now(),
        value: 1,
      },
      { ...exposure('bad-6'), latency_ms: 3 },
      { ...exposure('bad-7'), colour: 'red' },
      'not an object',
      exposure('ok-2'),
    ]);
    expect(res.statusCode).toBe(202);
    expect(res.json().accepted).toBe(2);
    expect(res.json().rejected).toEqual([
      { index: 1, detail: 'timestamp: must match format "date-time"' },
      { index: 2, detail: 'experiment_id: no experiment "no-such-experiment" in this org' },
      { index: 3, detail: 'type: must be equal to one of the allowed values' },
      { index: 4, detail: 'variant: "ghost" is not a variant of ingest-exp' },
      { index: 5, detail: 'business_metric: is required for business_event' },
      { index: 6, detail: 'latency_ms: only model_call carries it' },
      { index: 7, detail: 'event: colour is not a known field' },
      { index: 8, detail: 'event: must be object' },
    ]);
  });

  it('answers 400 when no event is valid, and stores nothing', async () => {
    const res = await send(acme.secret, [{ ...exposure('nope'), user_id: '' }]);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      type: '/problems/validation-error',
      errors: [{ pointer: '#/events/0', detail: 'user_id: must NOT have fewer than 1 characters' }],
    });
    await h.ctx.worker.foldAll();
    expect(await stored('nope')).toBeUndefined();
  });

  it('refuses an empty batch, more than 1,000 events and a body over 1 MiB', async () => {
    expect((await send(acme.secret, [])).statusCode).toBe(400);
    const many = Array.from({ length: 1001 }, (_, i) => exposure(`many-${i}`));
    const tooMany = await send(acme.secret, many);
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().errors[0]).toEqual({
      pointer: '#/events',
      detail: 'must NOT have more than 1000 items',
    });
    const big = Array.from({ length: 10 }, (_, i) => ({
      ...exposure(`big-${i}`),
      metadata: { pad: 'x'.repeat(120_000) },
    }));
    expect((await send(acme.secret, big)).statusCode).toBe(413);
  });

  it('stores text exactly as sent: tabs, newlines, backslashes, quotes, \\N, emoji, nested metadata', async () => {
    const tricky =
      'tab\there\nnew line\r\nback\\slash \\N "quoted" \'single\' 😀 naïve \\\\t end\\';
    const metadata = {
      note: tricky,
      nested: { list: [tricky, 1.5, true, null] },
      'key\twith\ttabs': 'v',
    };
    const res = await send(acme.secret, [
      {
        event_id: 'text\t1',
        type: 'model_call',
        experiment_id: experimentId,
        user_id: 'user\\with\nbreaks',
        timestamp: now(),
        model: tricky,
        error: tricky,
        prompt: tricky,
        response: tricky,
        metadata,
      },
    ]);
    expect(res.json()).toMatchObject({ accepted: 1, rejected: [] });
    expect(await stored('text\t1')).toMatchObject({
      userId: 'user\\with\nbreaks',
      model: tricky,
      error: tricky,
      prompt: tricky,
      response: tricky,
      metadata,
    });
  });

  it('rejects, event by event, text PostgreSQL cannot store: NUL and unpaired surrogates', async () => {
    const res = await send(acme.secret, [
      exposure('nul-ok'),
      { ...exposure('nul-1'), user_id: 'a\u0000b' },
      { ...exposure('nul-2'), metadata: { deep: { k: 'x\ud800' } } },
      { ...exposure('nul-3'), metadata: { 'key\udc00': 1 } },
      { ...exposure('nul-4'), user_id: '\ud83d\ude00 paired is fine' },
    ]);
    expect(res.statusCode).toBe(202);
    expect(res.json().accepted).toBe(2);
    expect(res.json().rejected).toEqual([
      { index: 1, detail: 'user_id: contains a NUL character or an unpaired surrogate' },
      { index: 2, detail: 'metadata/deep/k: contains a NUL character or an unpaired surrogate' },
      { index: 3, detail: 'metadata/key\udc00: contains a NUL character or an unpaired surrogate' },
    ]);
    expect((await stored('nul-4'))?.userId).toBe('😀 paired is fine');
    expect(await stored('nul-1')).toBeUndefined();
  });

  it('stores the instant of an offset timestamp and rejects one that names no instant', async () => {
    const res = await send(acme.secret, [
      // the instant `wholeSecond` written at UTC+2
      {
        ...exposure('tz-1'),
        timestamp: `${new Date(Date.parse(wholeSecond) + 2 * 3600_000).toISOString().slice(0, 19)}+02:00`,
      },
      { ...exposure('tz-2'), timestamp: `${now().slice(0, 10)}T23:59:60Z` },
    ]);
    expect(res.json().rejected).toEqual([
      { index: 1, detail: 'timestamp: is not a valid instant' },
    ]);
    expect((await stored('tz-1'))?.occurredAt.toISOString()).toBe(wholeSecond);
  });

  it('is idempotent per event_id: a retry is acknowledged, stored once and metered once', async () => {
    const used = async () =>
      (await h.call(acme.admin, { method: 'GET', url: '/v1/usage' })).json().events.used as number;
    const before = await used();
    // One object twice: two calls of exposure() a millisecond apart would differ in content.
    const repeated = exposure('idem-1');
    const second = exposure('idem-2');
    const batch = [repeated, second, repeated];
    const first = await send(acme.secret, batch);
    const retry = await send(acme.secret, batch);
    // Whole bodies, so a refusal shows its reason.
    expect(first.json()).toMatchObject({ accepted: 3, rejected: [] });
    expect(retry.json()).toMatchObject({ accepted: 3, rejected: [] });
    await h.ctx.worker.foldAll();
    expect(await used()).toBe(before + 2);
    // a batch mixing an event stored before with a new one: the new one is stored and metered
    const mixed = await send(acme.secret, [second, exposure('idem-3')]);
    expect(mixed.json()).toMatchObject({ accepted: 2, rejected: [] });
    expect(await stored('idem-3')).toBeDefined();
    expect(await used()).toBe(before + 3);
    expect(await storedEvents(h, eq(events.eventId, 'idem-1'))).toHaveLength(1);
  });
});

describe('metering and the allowance', () => {
  it('meters exposures, model calls and business events; past the free allowance it refuses with 429', async () => {
    const capped = await h.org('capped');
    const exp = await h.experiment(capped.admin, { name: 'capped-exp' });
    const ev = (id: string) => ({
      event_id: id,
      type: 'exposure',
      experiment_id: exp,
      user_id: 'u',
      timestamp: now(),
    });
    // Bring the org to one event short of the free plan's 50,000.
    const month = usageMonth(new Date());
    await h.ctx.db.insert(usageCounters).values({ orgId: capped.orgId, month, events: 49_999 });
    const partial = await send(capped.secret, [ev('c-1'), ev('c-2')]);
    expect(partial.statusCode).toBe(202);
    expect(partial.json().accepted).toBe(1);
    expect(partial.json().rejected[0].index).toBe(1);
    expect(partial.json().rejected[0].detail).toMatch(
      /^over the monthly allowance of 50000 events on the free plan; it resets at \d{4}-\d\d-01T00:00:00\.000Z$/,
    );
    const refused = await send(capped.secret, [ev('c-3')]);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({
      type: '/problems/allowance-exceeded',
      allowance: 50_000,
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    const [counter] = await h.ctx.db
      .select()
      .from(usageCounters)
      .where(and(eq(usageCounters.orgId, capped.orgId), eq(usageCounters.month, month)));
    expect(counter?.events).toBe(50_000);
    const usage = (await h.call(capped.admin, { method: 'GET', url: '/v1/usage' })).json();
    expect(usage).toMatchObject({
      plan: 'free',
      events: { used: 50_000, included: 50_000 },
      judge_evaluations: { used: 0, included: 0 },
      overage_billed: false,
      enforced: true,
    });
    expect(usage.resets_at).toMatch(/-01T00:00:00\.000Z$/);
  });
});

describe('rate limits', () => {
  it('limit the publishable key per minute with a 429 problem and Retry-After', async () => {
    const limited = await h.org('limited');
    let last = await h.ingest(limited.publishable, {
      method: 'POST',
      url: '/v1/assign',
      payload: { experiment_id: 'x', user_id: 'u' },
    });
    let n = 1;
    while (last.statusCode === 200 && n < 100) {
      last = await h.ingest(limited.publishable, {
        method: 'POST',
        url: '/v1/assign',
        payload: { experiment_id: 'x', user_id: 'u' },
      });
      n++;
    }
    expect(n).toBe(41);
    expect(last.statusCode).toBe(429);
    expect(last.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(last.json().type).toBe('/problems/rate-limited');
    expect(Number(last.headers['retry-after'])).toBeGreaterThan(0);
    // the secret key of the same org has its own, larger budget
    const secret = await h.ingest(limited.secret, {
      method: 'POST',
      url: '/v1/assign',
      payload: { experiment_id: 'x', user_id: 'u' },
    });
    expect(secret.statusCode).toBe(200);
  });

  it('count assign and events against one budget per key, refused alike by either route', async () => {
    const shared = await h.org('shared-budget');
    const assign = () =>
      h.ingest(shared.publishable, {
        method: 'POST',
        url: '/v1/assign',
        payload: { experiment_id: 'x', user_id: 'u' },
      });
    const events = () =>
      h.ingest(shared.publishable, {
        method: 'POST',
        url: '/v1/events',
        payload: { events: [{ type: 'exposure' }] },
      });
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) statuses.push((await (i % 2 ? events() : assign())).statusCode);
    expect(statuses.filter((s) => s === 429)).toEqual([]);
    const refusals = [await assign(), await events()];
    for (const refused of refusals) {
      expect(refused.statusCode).toBe(429);
      expect(refused.json().type).toBe('/problems/rate-limited');
      expect(refused.json().detail).toMatch(
        /^More than 40 requests per minute with this key; retry in (\d+ seconds?|1 minute)$/,
      );
      expect(refused.headers['x-ratelimit-limit']).toBe('40');
      expect(refused.headers['x-ratelimit-remaining']).toBe('0');
      expect(Number(refused.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
      expect(refused.headers['retry-after']).toBe(refused.headers['x-ratelimit-reset']);
    }
  });
});
