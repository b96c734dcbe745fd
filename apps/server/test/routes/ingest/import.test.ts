import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events, usageCounters } from '../../../src/db/schema.ts';
import { usageMonth } from '../../../src/domain/billing/usage-month.ts';
import { type Harness, startHarness } from '../../support/harness.ts';

let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
let exp: string;

beforeAll(async () => {
  // Limits stated: this file tests the free allowance, which applies by default only with billing.
  h = await startHarness({ ARBITER_ENFORCE_LIMITS: 'true' });
  acme = await h.org('acme');
  exp = await h.experiment(acme.admin, { name: 'imp' });
});
afterAll(() => h.close());

const importAs = (type: string, payload: string, key = acme.secret) =>
  h.ingest(key, {
    method: 'POST',
    url: '/v1/events/import',
    headers: { 'content-type': type },
    payload,
  });

async function storedIds(ids: string[]) {
  await h.ctx.worker.foldAll();
  const rows = await h.ctx.db.select().from(events).where(inArray(events.eventId, ids));
  return new Map(rows.map((r) => [r.eventId, r]));
}

// History two days before the experiments are made: imports carry it (and count it as before
// the analysis window).
const PAST_DAY = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);

const HEADER = 'event_id,type,experiment_id,user_id,timestamp,business_metric,value,metadata';

describe('CSV import (RFC 4180)', () => {
  it('reads quoted fields, doubled quotes, newlines inside quotes, CRLF and a BOM', async () => {
    const csv =
      `\uFEFF${HEADER}\r\n` +
      `csv-1,business_event,${exp},"user, with comma",${PAST_DAY}T10:00:00Z,revenue,12.5,"{""source"":""crm""}"\r\n` +
      `csv-2,business_event,imp,"multi\r\nline ""user""",${PAST_DAY}T11:00:00Z,conversion,1,\r\n` +
      `csv-3,exposure,imp,plain,${PAST_DAY}T12:00:00Z,,,\r\n`;
    const res = await importAs('text/csv', csv);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ events: 3, errors: [], before_analysis_window: 3 });
    const rows = await storedIds(['csv-1', 'csv-2', 'csv-3']);
    expect(rows.get('csv-1')).toMatchObject({
      userId: 'user, with comma',
      value: 12.5,
      metadata: { source: 'crm' },
    });
    expect(rows.get('csv-2')?.userId).toBe('multi\r\nline "user"');
    expect(rows.get('csv-3')?.type).toBe('exposure');
  });

  it('reports a malformed row amid good ones by the line it starts on, and stores the good ones', async () => {
    const csv = [
      HEADER,
      `g-1,exposure,imp,u1,${PAST_DAY}T10:00:00Z,,,`,
      `g-2,exposure,imp,"spans`,
      `two lines",${PAST_DAY}T10:00:00Z,,,`,
      `bad-fields,exposure,imp,u3`,
      `bad-value,business_event,imp,u4,${PAST_DAY}T10:00:00Z,revenue,twelve,`,
      `bad-type,purchase,imp,u5,${PAST_DAY}T10:00:00Z,,,`,
      `g-3,exposure,imp,u6,${PAST_DAY}T10:00:00Z,,,`,
    ].join('\n');
    const res = await importAs('text/csv', csv);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      events: 3,
      errors: [
        { line: 5, detail: 'expected 8 fields, found 4' },
        { line: 6, detail: 'value: not a number: "twelve"' },
        { line: 7, detail: 'type: must be equal to one of the allowed values' },
      ],
      before_analysis_window: 3,
    });
    const rows = await storedIds(['g-1', 'g-2', 'g-3', 'bad-fields', 'bad-value', 'bad-type']);
    expect([...rows.keys()].sort()).toEqual(['g-1', 'g-2', 'g-3']);
  });

  it('answers 400 for a payload without a usable header', async () => {
    const res = await importAs('text/csv', 'who,what\n1,2\n');
    expect(res.statusCode).toBe(400);
    expect(res.json().type).toBe('/problems/import-format');
  });
});

describe('JSON and NDJSON import', () => {
  it('reports bad JSON array elements by the line where each starts', async () => {
    const payload = `[
  {"event_id": "j-1", "type": "exposure", "experiment_id": "imp", "user_id": "a", "timestamp": "${PAST_DAY}T10:00:00Z"},
  {"event_id": "j-2", "type": "exposure", "experiment_id": "imp",
   "user_id": "", "timestamp": "${PAST_DAY}T10:00:00Z"},
  42,
  {"event_id": "j-3", "type": "exposure", "experiment_id": "imp", "user_id": "c", "timestamp": "${PAST_DAY}T10:00:00Z"}
]`;
    const res = await importAs('application/json', payload);
    expect(res.json()).toEqual({
      events: 2,
      errors: [
        { line: 3, index: 1, detail: 'user_id: must NOT have fewer than 1 characters' },
        { line: 5, index: 2, detail: 'must be a JSON object, found a number' },
      ],
      before_analysis_window: 2,
    });
    expect([...(await storedIds(['j-1', 'j-2', 'j-3'])).keys()].sort()).toEqual(['j-1', 'j-3']);
  });

  it('tells apart the elements of a one-line JSON array by their index', async () => {
    const good = (id: string, user: string) =>
      `{"event_id":"${id}","type":"exposure","experiment_id":"imp","user_id":"${user}","timestamp":"${PAST_DAY}T10:00:00Z"}`;
    const payload = `[${good('o-1', 'a')},${good('o-2', '')},"x",${good('o-3', 'c')}]`;
    const res = await importAs('application/json', payload);
    expect(res.json()).toEqual({
      events: 2,
      errors: [
        { line: 1, index: 1, detail: 'user_id: must NOT have fewer than 1 characters' },
        { line: 1, index: 2, detail: 'must be a JSON object, found a string' },
      ],
      before_analysis_window: 2,
    });
    expect([...(await storedIds(['o-1', 'o-2', 'o-3'])).keys()].sort()).toEqual(['o-1', 'o-3']);
  });

  it('reports bad NDJSON lines', async () => {
    const payload = [
      `{"event_id":"n-1","type":"exposure","experiment_id":"imp","user_id":"a","timestamp":"${PAST_DAY}T10:00:00Z"}`,
      '',
      '{"event_id":"n-2",',
      `{"event_id":"n-3","type":"exposure","experiment_id":"imp","user_id":"b","timestamp":"${PAST_DAY}T10:00:00Z"}`,
    ].join('\n');
    const res = await importAs('application/x-ndjson', payload);
    expect(res.json().events).toBe(2);
    expect(res.json().errors).toHaveLength(1);
    expect(res.json().errors[0].line).toBe(3);
    expect([...(await storedIds(['n-1', 'n-3'])).keys()].sort()).toEqual(['n-1', 'n-3']);
  });

  it('refuses another content type with 415', async () => {
    const res = await importAs('text/plain', 'x');
    expect(res.statusCode).toBe(415);
    expect(res.json().type).toBe('/problems/unsupported-media-type');
  });

  it('refuses a request without Content-Type or body with 415, not a 500', async () => {
    const res = await h.ingest(acme.secret, { method: 'POST', url: '/v1/events/import' });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({
      type: '/problems/unsupported-media-type',
      detail:
        'Send the payload as text/csv, application/json, application/x-ndjson with its Content-Type',
    });
  });

  it('refuses an empty CSV body with 400, as its schema says', async () => {
    const res = await importAs('text/csv', '');
    expect(res.statusCode).toBe(400);
    expect(res.json().type).toBe('/problems/validation-error');
  });
});

describe('import and the allowance', () => {
  it('reports rows past the remaining allowance as row errors, and refuses a used-up month with 429', async () => {
    const capped = await h.org('import-capped');
    const e = await h.experiment(capped.admin, { name: 'cap' });
    const month = usageMonth(new Date());
    await h.ctx.db.insert(usageCounters).values({ orgId: capped.orgId, month, events: 49_998 });
    const lines = ['event_id,type,experiment_id,user_id,timestamp'];
    for (let i = 1; i <= 4; i++) lines.push(`cap-${i},exposure,${e},u${i},${PAST_DAY}T10:00:00Z`);
    const res = await importAs('text/csv', lines.join('\n'), capped.secret);
    expect(res.statusCode).toBe(200);
    expect(res.json().events).toBe(2);
    expect(res.json().errors.map((x: { line: number }) => x.line)).toEqual([4, 5]);
    expect(res.json().errors[0].detail).toMatch(/^over the monthly allowance of 50000 events/);
    const again = await importAs(
      'text/csv',
      `${lines[0]}\ncap-9,exposure,${e},u9,${PAST_DAY}T10:00:00Z`,
      capped.secret,
    );
    expect(again.statusCode).toBe(429);
    const [counter] = await h.ctx.db
      .select()
      .from(usageCounters)
      .where(and(eq(usageCounters.orgId, capped.orgId), eq(usageCounters.month, month)));
    expect(counter?.events).toBe(50_000);
  });
});
