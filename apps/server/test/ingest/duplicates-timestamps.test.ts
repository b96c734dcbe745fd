import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events, experiments } from '../../src/db/schema.ts';
import { exposureOf, type TwoOrgs, twoOrgs } from '../support/ingest-probe.ts';
import { storedEvents } from '../support/stored-events.ts';

// Nothing is accepted silently — an id reused with other
// content, a timestamp a client could not have replayed, history before the analysis window.

// assigned in beforeAll
let { h, probe, acme, other, exp, otherExp } = {} as TwoOrgs;
let oldExp: string;

const HOUR = 3600_000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

beforeAll(async () => {
  ({ h, probe, acme, other, exp, otherExp } = await twoOrgs('dt'));
  // an experiment that has run for three days, so the 25 h window is not hidden by its start
  oldExp = await h.experiment(acme.admin, { name: 'dt-old' });
  await h.ctx.db
    .update(experiments)
    .set({ createdAt: new Date(Date.now() - 3 * 24 * HOUR) })
    .where(eq(experiments.id, oldExp));
  h.ctx.orgState.invalidate(acme.orgId);
});
afterAll(() => h.close());

const business = (id: string, value: number, extra: Record<string, unknown> = {}) => ({
  event_id: id,
  type: 'business_event',
  experiment_id: exp,
  user_id: 'dt-user',
  variant: 'control',
  timestamp: new Date().toISOString(),
  business_metric: 'revenue',
  value,
  ...extra,
});

async function storedValue(id: string) {
  const [row] = await storedEvents(h, eq(events.eventId, id));
  return row?.value;
}

describe('one event_id, two contents', () => {
  it('rejects the second event of a batch that reuses an id with other content; stores and meters the first once', async () => {
    const before = await probe.metered(acme.orgId);
    const res = await probe.send(acme.secret, [business('dup-1', 10), business('dup-1', 99)]);
    expect(res.statusCode).toBe(202);
    expect(res.json().accepted).toBe(1);
    expect(res.json().rejected).toEqual([
      {
        index: 1,
        detail:
          'event_id: "dup-1" is already used by event 0 of this request, with different content',
      },
    ]);
    expect(await storedValue('dup-1')).toBe(10);
    expect(await probe.metered(acme.orgId)).toBe(before + 1);
  });

  it('acknowledges identical repeats once, however they spell the experiment, the instant or the metadata', async () => {
    const before = await probe.metered(acme.orgId);
    const at = new Date();
    const first = business('same-1', 5, {
      timestamp: at.toISOString(),
      metadata: { a: 1, b: { c: 2, d: 3 } },
    });
    const again = {
      ...first,
      experiment_id: 'dt-exp',
      timestamp: at.toISOString().replace('Z', '+00:00'),
      metadata: { b: { d: 3, c: 2 }, a: 1 },
    };
    const res = await probe.send(acme.secret, [first, again]);
    expect(res.json()).toMatchObject({ accepted: 2, rejected: [] });
    expect(await probe.metered(acme.orgId)).toBe(before + 1);
  });

  it('counts a re-sent event_id in the ack: duplicates accepted, conflicts rejected', async () => {
    const at = new Date().toISOString();
    const first = [
      business('resent-1', 5, { timestamp: at, metadata: { a: 1, b: 2 } }),
      business('resent-2', 6, { timestamp: at }),
    ];
    const res = await probe.send(acme.secret, first);
    expect(res.json()).toMatchObject({ accepted: 2, duplicates: 0, conflicts: 0, rejected: [] });
    const before = await probe.metered(acme.orgId);
    // The same events again, spelled differently (experiment name, offset, key order): retries.
    const retry = await probe.send(acme.secret, [
      {
        ...first[0],
        experiment_id: 'dt-exp',
        timestamp: at.replace('Z', '+00:00'),
        metadata: { b: 2, a: 1 },
      },
    ]);
    expect(retry.json()).toMatchObject({ accepted: 1, duplicates: 1, conflicts: 0 });
    // The ids again with other content: not accepted, each copy rejected, the first stands.
    const reused = await probe.send(acme.secret, [
      business('resent-1', 5, { timestamp: at, metadata: { a: 1, b: 3 } }),
      business('resent-2', 60, { timestamp: at }),
      business('resent-3', 7, { timestamp: at }),
      business('resent-2', 60, { timestamp: at }),
    ]);
    expect(reused.statusCode).toBe(202);
    const stands = (id: string) =>
      `event_id: "${id}" is already stored with different content; the stored event stands`;
    expect(reused.json()).toEqual({
      accepted: 1,
      duplicates: 0,
      conflicts: 3,
      config_version: expect.any(Number),
      rejected: [
        { index: 0, detail: stands('resent-1') },
        { index: 1, detail: stands('resent-2') },
        { index: 3, detail: stands('resent-2') },
      ],
    });
    expect(await storedValue('resent-2')).toBe(6);
    expect(await probe.metered(acme.orgId)).toBe(before + 1);
    // A batch of conflicts alone accepts nothing: the problem names each.
    const only = await probe.send(acme.secret, [business('resent-2', 61, { timestamp: at })]);
    expect(only.statusCode).toBe(400);
    expect(only.json().errors).toEqual([{ pointer: '#/events/0', detail: stands('resent-2') }]);
    expect(await storedValue('resent-2')).toBe(6);
  });

  it('an import reports the row that reuses an id with other content, across its 5,000-row slices too', async () => {
    const header = 'event_id,type,experiment_id,user_id,timestamp,business_metric,value';
    const stamp = new Date().toISOString();
    const row = (id: string, value: number) =>
      `${id},business_event,dt-exp,dt-user,${stamp},revenue,${value}`;
    const filler = Array.from(
      { length: 5000 },
      (_, i) => `fill-${i},exposure,dt-exp,f${i},${new Date().toISOString()},,`,
    );
    const csv = [
      header,
      row('imp-dup', 1),
      row('imp-same', 2),
      ...filler,
      row('imp-same', 2),
      row('imp-dup', 7),
    ].join('\n');
    const before = await probe.metered(acme.orgId);
    const res = await probe.importAs(acme.secret, 'text/csv', csv);
    expect(res.statusCode).toBe(200);
    expect(res.json().events).toBe(5003);
    expect(res.json().errors).toEqual([
      {
        line: 5005,
        detail:
          'event_id: "imp-dup" is already used by line 2 of this request, with different content',
      },
    ]);
    expect(await storedValue('imp-dup')).toBe(1);
    expect(await probe.metered(acme.orgId)).toBe(before + 5002);
  });
});

describe('timestamps', () => {
  it('POST /v1/events takes the clients’ 24 h replay window plus 1 h, and nothing before the experiment’s first day', async () => {
    const before = await probe.metered(acme.orgId);
    const at = (id: string, timestamp: string, experiment = oldExp) => ({
      ...exposureOf(experiment, id, 'ts-user'),
      timestamp,
    });
    const res = await probe.send(acme.publishable, [
      at('ts-year-1', '0001-01-01T00:00:00Z'),
      at('ts-epoch', '1970-01-01T00:00:00Z'),
      at('ts-26h', ago(26 * HOUR)),
      at('ts-24h30', ago(24.5 * HOUR)),
      at('ts-future-23h', ago(-23 * HOUR)),
      at('ts-future-25h', ago(-25 * HOUR)),
      at('ts-before-start', ago(24 * HOUR), exp),
    ]);
    expect(res.statusCode).toBe(202);
    expect(res.json().accepted).toBe(2);
    const rejected = res.json().rejected as Array<{ index: number; detail: string }>;
    expect(rejected.map((r) => r.index)).toEqual([0, 1, 2, 5, 6]);
    expect(rejected[0]?.detail).toMatch(/^timestamp: more than 25 hours old/);
    expect(rejected[4]?.detail).toMatch(
      /^timestamp: before \d{4}-\d\d-\d\d, the UTC day dt-exp was created/,
    );
    expect(await probe.metered(acme.orgId)).toBe(before + 2);
    expect(
      await probe.storedIds([
        'ts-year-1',
        'ts-epoch',
        'ts-26h',
        'ts-24h30',
        'ts-future-23h',
        'ts-future-25h',
        'ts-before-start',
      ]),
    ).toEqual(['ts-24h30', 'ts-future-23h']);
  });

  it('an import carries a year of history, before the experiment included, and counts what falls before its window', async () => {
    const before = await probe.metered(acme.orgId);
    const rows = [
      { ...exposureOf(exp, 'hist-300d', 'hist-user'), timestamp: ago(300 * 24 * HOUR) },
      { ...exposureOf(exp, 'hist-2d', 'hist-user'), timestamp: ago(48 * HOUR) },
      { ...exposureOf(exp, 'hist-now', 'hist-user') },
      { ...exposureOf(exp, 'hist-epoch', 'hist-user'), timestamp: '1970-01-01T00:00:00Z' },
      { ...exposureOf(exp, 'hist-400d', 'hist-user'), timestamp: ago(400 * 24 * HOUR) },
    ];
    const res = await probe.importAs(
      acme.secret,
      'application/x-ndjson',
      rows.map((r) => JSON.stringify(r)).join('\n'),
    );
    expect(res.json()).toEqual({
      events: 3,
      errors: [
        { line: 4, detail: 'timestamp: more than 366 days old' },
        { line: 5, detail: 'timestamp: more than 366 days old' },
      ],
      before_analysis_window: 2,
    });
    expect(await probe.metered(acme.orgId)).toBe(before + 3);
    // stored and folded on their own days (the pre-period reads them); 1970 is no traffic day
    await probe.send(other.publishable, [exposureOf(otherExp, 'dt-other-1', 'dt-other-user')]);
    await h.ctx.worker.foldAll();
    expect(await probe.foldedExposures('hist-user')).toBe(3);
    expect(await probe.foldedExposures('dt-other-user')).toBe(1);
    const traffic = (
      await h.call(acme.admin, { method: 'GET', url: `/v1/experiments/${exp}/traffic` })
    ).json();
    expect(JSON.stringify(traffic)).not.toContain('1970-');
    const [epoch] = await h.ctx.db
      .execute(sql`select count(*)::int as n from user_day_stats where day < '2000-01-01'`)
      .then((r) => (r as unknown as { rows: Array<{ n: number }> }).rows);
    expect(epoch?.n).toBe(0);
  });

  it('a signed business event may be days late, and says when it falls before the analysis window', async () => {
    const secret = (await h.call(acme.admin, { method: 'POST', url: '/v1/webhook-secrets' })).json()
      .secret;
    const outcome = (id: string, timestamp: string) =>
      JSON.stringify({
        event_id: id,
        experiment_id: exp,
        user_id: 'late-buyer',
        business_metric: 'revenue',
        value: 3,
        timestamp,
      });
    const late = await probe.signedBusinessEvent(secret, outcome('late-1', ago(48 * HOUR)));
    expect(late.statusCode).toBe(202);
    expect(late.json()).toMatchObject({ accepted: 1, before_analysis_window: true });
    const fresh = await probe.signedBusinessEvent(secret, outcome('late-2', ago(0)));
    expect(fresh.json()).toMatchObject({ accepted: 1, before_analysis_window: false });
    const ancient = await probe.signedBusinessEvent(
      secret,
      outcome('late-3', '1970-01-01T00:00:00Z'),
    );
    expect(ancient.statusCode).toBe(400);
    expect(await probe.storedIds(['late-1', 'late-2', 'late-3'])).toEqual(['late-1', 'late-2']);
  });
});
