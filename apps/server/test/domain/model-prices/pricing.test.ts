import { readFileSync } from 'node:fs';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, events } from '../../../src/db/schema.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import { storedEvents } from '../../support/stored-events.ts';

/**
 * Model calls priced at acceptance from the price table: the built-in row in effect at the
 * call's timestamp, each kind of token at its own rate, an org's override from its effective
 * day on, a sent cost kept, unknown models counted by GET /v1/usage. The harness runs on the
 * database's log here and on Kafka and shards when the test environment names them.
 */
interface Row {
  pattern: string;
  effective_from: string;
  input_per_million: number;
  output_per_million: number;
  cached_input_per_million: number | null;
  reasoning_per_million: number | null;
}
const TABLE = JSON.parse(
  readFileSync(new URL('../../../src/domain/model-prices/prices.json', import.meta.url), 'utf8'),
) as { rows: Row[] };

function builtIn(pattern: string): Row {
  const rows = TABLE.rows.filter((r) => r.pattern === pattern);
  const row = rows.sort((a, b) => b.effective_from.localeCompare(a.effective_from))[0];
  if (row === undefined) throw new Error(`no built-in row ${pattern}`);
  return row;
}

/** The oracle: every kind of token at its rate, the cached and reasoning parts out of their wholes. */
function expectedCost(row: Row, t: { i: number; o: number; c?: number; r?: number }): number {
  const c = t.c ?? 0;
  const r = t.r ?? 0;
  return (
    ((t.i - c) * row.input_per_million +
      c * (row.cached_input_per_million ?? row.input_per_million) +
      (t.o - r) * row.output_per_million +
      r * (row.reasoning_per_million ?? row.output_per_million)) /
    1e6
  );
}

// The experiment's window starts on the real UTC day it is made (the database's clock), so the
// calls are dated from today; the override starts tomorrow, where the test's clock then moves.
let at = new Date();
const TODAY = at.toISOString().slice(0, 10);
const TOMORROW = new Date(Date.parse(`${TODAY}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
const OVERRIDE = `org:gpt-4o@${TOMORROW}`;
let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
let experimentId: string;

beforeAll(async () => {
  h = await startHarness({}, { clock: { now: () => new Date(at) } });
  acme = await h.org('acme_prices');
  experimentId = await h.experiment(acme.admin, { name: 'priced' });
});
afterAll(() => h.close());

let n = 0;
function call(model: string, fields: Record<string, unknown>, timestamp = at.toISOString()) {
  n += 1;
  return {
    event_id: `call-${n}`,
    type: 'model_call',
    experiment_id: experimentId,
    user_id: `u${n % 7}`,
    timestamp,
    model,
    ...fields,
  };
}

async function send(list: object[]) {
  const res = await h.ingest(acme.secret, {
    method: 'POST',
    url: '/v1/events',
    payload: { events: list },
  });
  expect(res.statusCode, res.body).toBe(202);
  return res.json();
}

async function stored(eventId: string) {
  const [row] = await storedEvents(
    h,
    and(eq(events.orgId, acme.orgId), eq(events.eventId, eventId)),
  );
  if (row === undefined) throw new Error(`${eventId} not stored`);
  return row;
}

describe('pricing at ingest', () => {
  it('prices cached and reasoning tokens at their own rates and names the row', async () => {
    const preview = builtIn('gemini-2.5-flash-preview-04-17');
    expect(preview.reasoning_per_million).not.toBe(preview.output_per_million);
    expect(preview.cached_input_per_million).not.toBe(preview.input_per_million);
    const tokens = { i: 12_345, o: 6_789, c: 2_345, r: 4_321 };
    const sent = call('gemini-2.5-flash-preview-04-17', {
      input_tokens: tokens.i,
      output_tokens: tokens.o,
      cached_input_tokens: tokens.c,
      reasoning_tokens: tokens.r,
    });
    await send([sent]);
    const row = await stored(sent.event_id);
    expect(Math.abs((row.costUsd ?? Number.NaN) - expectedCost(preview, tokens))).toBeLessThan(
      1e-12,
    );
    expect(row.pricedBy).toBe('builtin:gemini-2.5-flash-preview-04-17@2025-04-17');
    expect(row).toMatchObject({ cachedInputTokens: 2_345, reasoningTokens: 4_321 });
  });

  it('prices a dated snapshot by its model row, never by a longer model’s row', async () => {
    const mini = call('gpt-4o-mini-2024-07-18', { input_tokens: 1000, output_tokens: 100 });
    const full = call('gpt-4o-2024-08-06', { input_tokens: 1000, output_tokens: 100 });
    await send([mini, full]);
    const miniRow = await stored(mini.event_id);
    expect(miniRow.pricedBy).toBe('builtin:gpt-4o-mini@2024-07-18');
    expect(
      Math.abs(miniRow.costUsd! - expectedCost(builtIn('gpt-4o-mini'), { i: 1000, o: 100 })),
    ).toBeLessThan(1e-12);
    expect((await stored(full.event_id)).pricedBy).toBe('builtin:gpt-4o@2024-08-06');
  });

  it('keeps a cost the caller sent, and names no row', async () => {
    const sent = call('gpt-4o', { input_tokens: 10, output_tokens: 10, cost_usd: 0.5 });
    await send([sent]);
    expect(await stored(sent.event_id)).toMatchObject({ costUsd: 0.5, pricedBy: null });
  });

  it('gives the row back in the raw-event export, and none for a sent cost', async () => {
    const priced = call('gpt-4o-2024-08-06', { input_tokens: 500, output_tokens: 50 });
    const sent = call('gpt-4o', { input_tokens: 500, output_tokens: 50, cost_usd: 0.25 });
    await send([priced, sent]);
    // Stored first: on the Kafka path a 202 precedes the fold that writes the rows.
    await stored(priced.event_id);
    await stored(sent.event_id);
    const res = await h.call(acme.admin, {
      method: 'GET',
      url: `/v1/events/export?experiment=${experimentId}&day=${TODAY}`,
    });
    expect(res.statusCode, res.body).toBe(200);
    const lines = res.body
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const line = (id: string) => lines.find((l) => l.event_id === id);
    expect(line(priced.event_id)).toMatchObject({ priced_by: 'builtin:gpt-4o@2024-08-06' });
    expect(Object.keys(line(priced.event_id) ?? {}).at(-1)).toBe('priced_by');
    expect(line(sent.event_id)).toMatchObject({ cost_usd: 0.25 });
    expect(line(sent.event_id)).not.toHaveProperty('priced_by');
  });

  it('refuses a token part larger than its whole, storing nothing', async () => {
    const bad = call('gpt-4o', { input_tokens: 10, cached_input_tokens: 11, output_tokens: 1 });
    const orphan = call('gpt-4o', { output_tokens: 5, cached_input_tokens: 1 });
    const ack = await send([bad, orphan, call('gpt-4o', { input_tokens: 1 })]);
    expect(ack.rejected).toEqual([
      { index: 0, detail: 'cached_input_tokens: 11 exceeds input_tokens (10), which counts it' },
      { index: 1, detail: 'cached_input_tokens: is a part of input_tokens, which is missing' },
    ]);
    const rows = await storedEvents(h, eq(events.eventId, bad.event_id));
    expect(rows).toEqual([]);
  });
});

describe('unpriced calls', () => {
  it('keep no cost and are counted per model by GET /v1/usage', async () => {
    await send([
      call('house-llm-7', { input_tokens: 5, output_tokens: 5 }),
      call('house-llm-7', { input_tokens: 6 }),
      call('house-llm-7', { output_tokens: 7 }),
      call('gpt-4o-turbo-deluxe', { input_tokens: 1, output_tokens: 1 }),
      // No tokens: nothing to price, so nothing to add a price for.
      call('no-tokens-model', { latency_ms: 10 }),
    ]);
    const unpriced = await storedEvents(
      h,
      and(eq(events.orgId, acme.orgId), eq(events.model, 'house-llm-7')),
    );
    expect(unpriced.map((r) => [r.costUsd, r.pricedBy])).toEqual([
      [null, null],
      [null, null],
      [null, null],
    ]);
    const usage = await h.call(acme.admin, { method: 'GET', url: '/v1/usage' });
    expect(usage.statusCode, usage.body).toBe(200);
    expect(usage.json().unpriced_calls).toEqual([
      { model: 'house-llm-7', calls: 3 },
      { model: 'gpt-4o-turbo-deluxe', calls: 1 },
    ]);
  });
});

describe('an org’s override', () => {
  it('wins from its effective day; earlier calls keep their cost, a retry is no conflict', async () => {
    const gpt4o = builtIn('gpt-4o');
    const tokens = { i: 2000, o: 300, c: 500 };
    const fields = { input_tokens: 2000, output_tokens: 300, cached_input_tokens: 500 };
    const before = call('gpt-4o', fields);
    // Dated on the override's day but stored before the override exists: it keeps its cost.
    const storedEarly = call('gpt-4o', fields, `${TOMORROW}T00:00:00Z`);
    await send([before, storedEarly]);
    const put = await h.call(acme.admin, {
      method: 'PUT',
      url: '/v1/model-prices',
      payload: {
        pattern: 'GPT-4o',
        effective_from: TOMORROW,
        input_per_million: 1.5,
        output_per_million: 6,
        cached_input_per_million: 0.25,
        source: 'our contract',
      },
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toMatchObject({ pattern: 'gpt-4o', ref: OVERRIDE });
    // Early tomorrow: `before` is dated now, so however early today that was, its retry is at
    // most 24.5 h old, inside the 25 h replay window (at 06:00 a run after midnight broke it).
    at = new Date(`${TOMORROW}T00:30:00Z`);
    const after = call('gpt-4o-2024-11-20', fields, `${TOMORROW}T00:20:00Z`);
    const lateArrival = call('gpt-4o', fields, `${TODAY}T23:59:00Z`);
    // Retries priced again under the new row are the same events, not conflicts.
    const ack = await send([after, lateArrival, before, storedEarly]);
    expect(ack).toMatchObject({ accepted: 4, duplicates: 2, conflicts: 0, rejected: [] });
    const override = {
      ...gpt4o,
      input_per_million: 1.5,
      output_per_million: 6,
      cached_input_per_million: 0.25,
    };
    const afterRow = await stored(after.event_id);
    expect(afterRow.pricedBy).toBe(OVERRIDE);
    expect(Math.abs(afterRow.costUsd! - expectedCost(override, tokens))).toBeLessThan(1e-12);
    for (const earlier of [before, lateArrival, storedEarly]) {
      const row = await stored(earlier.event_id);
      expect(row.pricedBy).toBe('builtin:gpt-4o@2024-08-06');
      expect(Math.abs(row.costUsd! - expectedCost(gpt4o, tokens))).toBeLessThan(1e-12);
    }
    const listed = (await h.call(acme.admin, { method: 'GET', url: '/v1/model-prices' })).json();
    expect(listed.org).toEqual([
      {
        pattern: 'gpt-4o',
        effective_from: TOMORROW,
        currency: 'USD',
        input_per_million: 1.5,
        output_per_million: 6,
        cached_input_per_million: 0.25,
        reasoning_per_million: null,
        source: 'our contract',
        ref: OVERRIDE,
      },
    ]);
    const trail = await h.ctx.db.select().from(auditLog).where(eq(auditLog.targetId, OVERRIDE));
    expect(trail.map((e) => e.action)).toEqual(['model_price.put']);
  });

  it('is removed by DELETE, audited; calls it priced keep their cost', async () => {
    const url = `/v1/model-prices?pattern=gpt-4o&effective_from=${TOMORROW}`;
    const gone = await h.call(acme.admin, { method: 'DELETE', url });
    expect(gone.statusCode, gone.body).toBe(204);
    const again = await h.call(acme.admin, { method: 'DELETE', url });
    expect(again.statusCode).toBe(404);
    expect(again.json()).toMatchObject({
      type: '/problems/model-price-not-found',
      status: 404,
      detail: `your org has no price row for "gpt-4o" from ${TOMORROW}`,
    });
    const priced = await storedEvents(h, eq(events.pricedBy, OVERRIDE));
    expect(priced.length).toBe(1);
    const trail = await h.ctx.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, 'model_price.deleted'));
    expect(trail.length).toBe(1);
  });

  it('refuses a bad row with a problem and stores nothing', async () => {
    const res = await h.call(acme.admin, {
      method: 'PUT',
      url: '/v1/model-prices',
      payload: { pattern: 'gpt 4o', effective_from: '2026-13-01', input_per_million: -1 },
    });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    const listed = (await h.call(acme.admin, { method: 'GET', url: '/v1/model-prices' })).json();
    expect(listed.org).toEqual([]);
    expect(listed.built_in.length).toBe(TABLE.rows.length);
  });
});
