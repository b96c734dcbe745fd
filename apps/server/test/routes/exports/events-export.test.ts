import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_BYTES, PAGE_ROWS } from '../../../src/domain/events-export/export-lines.ts';
import { DAY_MS, utcDay } from '../../../src/kernel/utc-day.ts';
import { type Harness, startHarness } from '../../support/harness.ts';

/**
 * GET /v1/events/export: events sent through POST /v1/events and folded come back one a line,
 * each equal to what was sent (plus received_at), text byte for byte, cut at the UTC day and
 * ordered by timestamp then event id, across pages of rows and of bytes.
 */
let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
let experimentId: string;
let today: string;
let tomorrow: string;
let yesterday: string;
const sent: Array<Record<string, unknown>> = [];

/** Non-ASCII of every width, JSON's escapes, a lone line separator, and a big text. */
const TRICKY = 'Grüße, 世界 😀 — "quoted" \\ back\nslash\ttab\u2028sep\u0001ctl';
const big = (seed: string) => `${seed}:${'Ünïcödé 文字 🧪 '.repeat(28_000)}`.slice(0, 190_000);

const at = (day: string, time: string) => `${day}T${time}Z`;

async function post(list: Array<Record<string, unknown>>) {
  const res = await h.ingest(acme.secret, {
    method: 'POST',
    url: '/v1/events',
    payload: { events: list },
  });
  expect(res.statusCode, res.body).toBe(202);
  expect(res.json().accepted).toBe(list.length);
  sent.push(...list);
}

function exportOf(query: string, key: string = acme.secret): Promise<LightMyRequestResponse> {
  return h.ingest(key, { method: 'GET', url: `/v1/events/export?${query}` });
}

function lines(res: LightMyRequestResponse): Array<Record<string, unknown>> {
  expect(res.statusCode, res.body.slice(0, 500)).toBe(200);
  expect(res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
  if (res.body === '') return [];
  expect(res.body.endsWith('\n')).toBe(true);
  return res.body
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line));
}

/** The order the export promises: timestamp, then event id by its bytes. */
function byTimeThenId(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const t = Date.parse(a.timestamp as string) - Date.parse(b.timestamp as string);
  if (t !== 0) return t;
  return Buffer.compare(Buffer.from(a.event_id as string), Buffer.from(b.event_id as string));
}

function withoutReceivedAt(line: Record<string, unknown>) {
  const { received_at, ...event } = line;
  expect(typeof received_at).toBe('string');
  expect(new Date(received_at as string).toISOString()).toBe(received_at);
  return event;
}

beforeAll(async () => {
  h = await startHarness();
  acme = await h.org('export_acme');
  experimentId = await h.experiment(acme.admin, { name: 'export-exp' });
  const now = new Date();
  today = utcDay(now);
  tomorrow = utcDay(new Date(now.getTime() + DAY_MS));
  yesterday = utcDay(new Date(now.getTime() - DAY_MS));
  const base = { experiment_id: experimentId, user_id: 'alice', variant: 'control' };
  await post([
    { ...base, event_id: 'first', type: 'exposure', timestamp: at(today, '00:00:00.000') },
    { ...base, event_id: 'last', type: 'exposure', timestamp: at(today, '23:59:59.999') },
    { ...base, event_id: 'next-day', type: 'exposure', timestamp: at(tomorrow, '00:00:00.000') },
    // Same instant: byte order puts "Z" before "a", whatever the database's locale says.
    { ...base, event_id: 'a-same', type: 'exposure', timestamp: at(today, '06:00:00.000') },
    { ...base, event_id: 'Z-same', type: 'exposure', timestamp: at(today, '06:00:00.000') },
    {
      ...base,
      event_id: 'call-1',
      type: 'model_call',
      user_id: 'bob ü',
      variant: 'treatment',
      timestamp: at(today, '07:00:00.123'),
      latency_ms: 812.5,
      input_tokens: 120,
      output_tokens: 40,
      cost_usd: 0.0031,
      model: 'gpt-4o-mini',
      error: 'timeout 😀',
      prompt: TRICKY,
      response: `${TRICKY} reply`,
      metadata: { route: 'chat', nested: { n: 1.5, list: ['ü', null, true] } },
    },
    {
      ...base,
      event_id: 'call-bare',
      type: 'model_call',
      timestamp: at(today, '07:30:00.000'),
      model: 'm',
    },
    {
      ...base,
      event_id: 'order-1',
      type: 'business_event',
      timestamp: at(today, '08:00:00.000'),
      business_metric: 'revenue',
      value: -19.99,
      metadata: { arbiter_test: true },
    },
  ]);
  // Large texts, one call a batch (1 MiB each): more than a page's bytes together.
  for (let i = 0; i < 8; i++) {
    await post([
      {
        ...base,
        event_id: `big-${i}`,
        type: 'model_call',
        timestamp: at(today, `09:00:00.00${i}`),
        prompt: big(`prompt ${i}`),
        response: big(`response ${i}`),
      },
    ]);
  }
  // More exposures than a page's rows.
  const many = Array.from({ length: PAGE_ROWS * 2 + 7 }, (_, i) => ({
    ...base,
    event_id: `many-${String(i).padStart(5, '0')}`,
    type: 'exposure',
    user_id: `user-${i}`,
    timestamp: at(today, `10:00:${String(i % 60).padStart(2, '0')}.000`),
  }));
  for (let i = 0; i < many.length; i += 500) await post(many.slice(i, i + 500));
  await h.ctx.worker.foldAll();
});
afterAll(() => h.close());

describe('GET /v1/events/export', () => {
  it('gives back every event of the day, equal to what was sent, in order', async () => {
    const expected = sent.filter((e) => (e.timestamp as string).startsWith(today));
    expected.sort(byTimeThenId);
    const got = lines(await exportOf(`experiment=${experimentId}&day=${today}`));
    expect(got.length).toBe(expected.length);
    expect(got.map((l) => l.event_id)).toEqual(expected.map((e) => e.event_id));
    got.forEach((line, i) => {
      expect(withoutReceivedAt(line)).toEqual(expected[i]);
    });
    expect(got[0]?.event_id).toBe('first');
    expect(got.at(-1)?.event_id).toBe('last');
    expect(got.findIndex((l) => l.event_id === 'Z-same')).toBeLessThan(
      got.findIndex((l) => l.event_id === 'a-same'),
    );
  });

  it('was given more than a page of rows and of bytes to export', () => {
    const bigBytes = sent
      .filter((e) => String(e.event_id).startsWith('big-'))
      .reduce((n, e) => n + Buffer.byteLength(`${e.prompt}${e.response}`), 0);
    expect(bigBytes).toBeGreaterThan(PAGE_BYTES);
    expect(sent.filter((e) => String(e.timestamp).startsWith(today)).length).toBeGreaterThan(
      PAGE_ROWS * 2,
    );
  });

  it('carries model text byte for byte, non-ASCII and large', async () => {
    const res = await exportOf(`experiment=export-exp&day=${today}`);
    // The answer is valid UTF-8 throughout, and each text's bytes are the bytes sent.
    new TextDecoder('utf-8', { fatal: true }).decode(res.rawPayload);
    const byId = new Map(lines(res).map((l) => [l.event_id, l]));
    for (const e of sent.filter((x) => x.type === 'model_call' && x.prompt !== undefined)) {
      const line = byId.get(e.event_id);
      for (const field of ['prompt', 'response']) {
        expect(Buffer.from(line?.[field] as string).equals(Buffer.from(e[field] as string))).toBe(
          true,
        );
      }
    }
    const calls = lines(res).filter((l) => String(l.event_id).startsWith('big-'));
    expect(calls).toHaveLength(8);
    for (const [i, line] of calls.entries()) {
      expect(line.prompt).toBe(big(`prompt ${i}`));
      // Compared as bytes with equals(): toEqual walks a Buffer element by element.
      expect(Buffer.from(line.response as string).equals(Buffer.from(big(`response ${i}`)))).toBe(
        true,
      );
    }
  });

  it('cuts at UTC midnight: the next day and the day before', async () => {
    const next = lines(await exportOf(`experiment=${experimentId}&day=${tomorrow}`));
    expect(next.map((l) => l.event_id)).toEqual(['next-day']);
    const before = await exportOf(`experiment=${experimentId}&day=${yesterday}`);
    expect(lines(before)).toEqual([]);
    expect(before.body).toBe('');
  });

  it('addresses the experiment by id and by name alike', async () => {
    const byId = await exportOf(`experiment=${experimentId}&day=${today}`);
    const byName = await exportOf(`experiment=export-exp&day=${today}`);
    const strip = (r: LightMyRequestResponse) => lines(r).map(withoutReceivedAt);
    expect(strip(byName)).toEqual(strip(byId));
    expect(byName.headers['content-disposition']).toBe(
      `attachment; filename="export-exp-${today}.ndjson"`,
    );
  });

  it('admits an admin session, an owner session and the secret key', async () => {
    const owner = await h.token({ sub: 'owner-1', org_id: 'export_acme', org_role: 'owner' });
    for (const res of [
      await h.call(acme.admin, {
        method: 'GET',
        url: `/v1/events/export?experiment=export-exp&day=${tomorrow}`,
      }),
      await h.call(owner, {
        method: 'GET',
        url: `/v1/events/export?experiment=export-exp&day=${tomorrow}`,
      }),
      await exportOf(`experiment=export-exp&day=${tomorrow}`),
    ]) {
      expect(lines(res).map((l) => l.event_id)).toEqual(['next-day']);
    }
  });

  it('refuses a member session (403) and the publishable key (401)', async () => {
    const member = await h.token({ sub: 'member-1', org_id: 'export_acme', org_role: 'member' });
    const url = `/v1/events/export?experiment=export-exp&day=${today}`;
    const asMember = await h.call(member, { method: 'GET', url });
    expect(asMember.statusCode).toBe(403);
    expect(asMember.json().type).toBe('/problems/insufficient-role');
    const asPublishable = await exportOf(`experiment=export-exp&day=${today}`, acme.publishable);
    expect(asPublishable.statusCode).toBe(401);
    expect(asPublishable.json().type).toBe('/problems/invalid-credential');
  });

  it('answers 404 to another org, by session and by key, by id and by name', async () => {
    const other = await h.org('export_other');
    for (const experiment of [experimentId, 'export-exp', '00000000-0000-4000-8000-000000000000']) {
      const url = `/v1/events/export?experiment=${experiment}&day=${today}`;
      for (const res of [
        await h.call(other.admin, { method: 'GET', url }),
        await h.ingest(other.secret, { method: 'GET', url }),
      ]) {
        expect(res.statusCode).toBe(404);
        expect(res.json().type).toBe('/problems/experiment-not-found');
      }
    }
  });

  it('answers 400 naming the parameter for a missing or bad one', async () => {
    const cases: Array<[string, string]> = [
      [`day=${today}`, 'experiment'],
      [`experiment=export-exp`, 'day'],
      [`experiment=export-exp&day=2026-02-30`, 'day'],
      [`experiment=export-exp&day=0000-01-01`, 'day'],
      [`experiment=export-exp&day=2026-2-3`, 'day'],
      [`experiment=export-exp&day=${today}T00:00:00Z`, 'day'],
      [`experiment=&day=${today}`, 'experiment'],
      [`experiment=export-exp&day=${today}&limit=5`, 'limit'],
    ];
    for (const [query, param] of cases) {
      const res = await exportOf(query);
      expect(res.statusCode, query).toBe(400);
      expect(res.json(), query).toMatchObject({
        type: '/problems/validation-error',
        errors: expect.arrayContaining([expect.objectContaining({ parameter: param })]),
      });
    }
  });
});
