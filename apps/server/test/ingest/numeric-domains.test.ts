import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/connect.ts';
import { exposureOf, type TwoOrgs, twoOrgs } from '../support/ingest-probe.ts';

// Every numeric field has a domain the aggregates can hold,
// on every route, and the fold cannot overflow whatever the log holds.

// assigned in beforeAll
let { h, probe, acme, other, exp, otherExp } = {} as TwoOrgs;

beforeAll(async () => {
  ({ h, probe, acme, other, exp, otherExp } = await twoOrgs('num'));
});
afterAll(() => h.close());

const now = () => new Date().toISOString();
const business = (id: string, value: number) => ({
  event_id: id,
  type: 'business_event',
  experiment_id: exp,
  user_id: 'nu',
  variant: 'control',
  timestamp: now(),
  business_metric: 'revenue',
  value,
});
const modelCall = (id: string, fields: Record<string, number>) => ({
  event_id: id,
  type: 'model_call',
  experiment_id: exp,
  user_id: 'nu',
  variant: 'control',
  timestamp: now(),
  ...fields,
});

describe('numeric domains', () => {
  it('rejects out-of-domain values event by event on /v1/events (publishable key), keeps and meters the rest', async () => {
    const before = await probe.metered(acme.orgId);
    const res = await probe.send(acme.publishable, [
      business('n-big', 1e155),
      business('n-neg', -1e13),
      modelCall('n-lat', { latency_ms: 86_400_001 }),
      modelCall('n-tok', { input_tokens: 1_000_000_001 }),
      modelCall('n-cost', { cost_usd: 1e7 }),
      business('n-edge', 1e12),
      modelCall('n-edge-call', {
        latency_ms: 86_400_000,
        input_tokens: 1_000_000_000,
        output_tokens: 1_000_000_000,
        cost_usd: 1_000_000,
      }),
    ]);
    expect(res.statusCode).toBe(202);
    expect(res.json().accepted).toBe(2);
    expect(res.json().rejected).toEqual([
      { index: 0, detail: 'value: must be <= 1000000000000' },
      { index: 1, detail: 'value: must be >= -1000000000000' },
      { index: 2, detail: 'latency_ms: must be <= 86400000' },
      { index: 3, detail: 'input_tokens: must be <= 1000000000' },
      { index: 4, detail: 'cost_usd: must be <= 1000000' },
    ]);
    // Folded first: on a log with a queue (Kafka) reading what is stored folds it.
    expect(await h.ctx.worker.foldAll()).toBe(2);
    expect(
      await probe.storedIds([
        'n-big',
        'n-neg',
        'n-lat',
        'n-tok',
        'n-cost',
        'n-edge',
        'n-edge-call',
      ]),
    ).toEqual(['n-edge', 'n-edge-call']);
    expect(await probe.metered(acme.orgId)).toBe(before + 2);
  });

  it('refuses the same values on the signed business-event route and in CSV, JSON and NDJSON imports', async () => {
    const secret = (await h.call(acme.admin, { method: 'POST', url: '/v1/webhook-secrets' })).json()
      .secret;
    const raw = JSON.stringify({
      event_id: 'n-signed',
      experiment_id: exp,
      user_id: 'nu',
      business_metric: 'revenue',
      value: 1e155,
    });
    const signed = await probe.signedBusinessEvent(secret, raw);
    expect(signed.statusCode).toBe(400);
    expect(signed.json().errors).toEqual([
      { pointer: '#/value', detail: 'must be <= 1000000000000' },
    ]);

    const csv = [
      'event_id,type,experiment_id,user_id,timestamp,business_metric,value',
      `n-csv-1,business_event,num-exp,nu,${now()},revenue,1e155`,
      `n-csv-2,business_event,num-exp,nu,${now()},revenue,12.5`,
    ].join('\n');
    const fromCsv = await probe.importAs(acme.secret, 'text/csv', csv);
    expect(fromCsv.json()).toMatchObject({
      events: 1,
      errors: [{ line: 2, detail: 'value: must be <= 1000000000000' }],
    });
    const json = JSON.stringify([
      { ...modelCall('n-json-1', { cost_usd: 2e6 }) },
      { ...modelCall('n-json-2', { cost_usd: 2 }) },
    ]);
    const fromJson = await probe.importAs(acme.secret, 'application/json', json);
    expect(fromJson.json()).toMatchObject({
      events: 1,
      errors: [{ line: 1, detail: 'cost_usd: must be <= 1000000' }],
    });
    const ndjson = `${JSON.stringify(modelCall('n-nd-1', { output_tokens: 1e10 }))}\n${JSON.stringify(modelCall('n-nd-2', { output_tokens: 10 }))}\n`;
    const fromNdjson = await probe.importAs(acme.secret, 'application/x-ndjson', ndjson);
    expect(fromNdjson.json()).toMatchObject({
      events: 1,
      errors: [{ line: 1, detail: 'output_tokens: must be <= 1000000000' }],
    });
    expect(await h.ctx.worker.foldAll()).toBe(3);
    expect(
      await probe.storedIds([
        'n-signed',
        'n-csv-1',
        'n-csv-2',
        'n-json-1',
        'n-json-2',
        'n-nd-1',
        'n-nd-2',
      ]),
    ).toEqual(['n-csv-2', 'n-json-2', 'n-nd-2']);
  });

  it('folds a row stored before the domains existed (1e155) exactly, and another org still folds', async () => {
    // As a server before the domains stored it: a value outside them (it overflowed float8
    // when the fold still squared values).
    await h.ctx.db.execute(sql`
      insert into events (org_id, event_id, type, experiment_id, user_id, variant, occurred_at,
        received_at, business_metric, value)
      values (${acme.orgId}, 'n-legacy', 'business_event', ${exp}, 'legacy-user', 'control', now(),
        now(), 'revenue', 1e155)`);
    expect(
      (await probe.send(other.publishable, [exposureOf(otherExp, 'n-other', 'other-user')]))
        .statusCode,
    ).toBe(202);
    expect(await h.ctx.worker.foldAll()).toBe(2);
    expect(await h.ctx.eventLog.depth()).toBe(0);
    const [row] = await rows<{ exact: boolean }>(
      h.ctx.db,
      sql`select sum = 1e155 as exact from user_day_business
          where user_id = 'legacy-user'`,
    );
    expect(row?.exact).toBe(true);
    expect(await probe.foldedExposures('other-user')).toBe(1);
  });
});
