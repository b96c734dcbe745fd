import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FailureLog } from '../../src/ingest/failure-log.ts';
import { FoldWorker } from '../../src/ingest/fold-worker.ts';
import { ingestHealth } from '../../src/ingest/ingest-health.ts';
import { listQuarantined } from '../../src/ingest/quarantine.ts';
import { exposureOf, type TwoOrgs, twoOrgs } from '../support/ingest-probe.ts';

// A row the fold cannot fold is set aside with its reason,
// logged once, and passed, so it holds back no other row and no other org.

// assigned in beforeAll
let { h, probe, acme, other, exp, otherExp } = {} as TwoOrgs;

beforeAll(async () => {
  ({ h, probe, acme, other, exp, otherExp } = await twoOrgs('q'));
});
afterAll(() => h.close());

/** The quarantine as the platform owner's health view lists it: over every shard. */
const quarantine = () =>
  ingestHealth(
    h.ctx.shards.all.map((s) => s.db),
    new Date(),
  );

/** A pino logger whose lines land in `lines`. */
function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { lines, log: pino({ level: 'info' }, sink) };
}

describe('the fold isolates a row it cannot fold', () => {
  it('quarantines the row with its reason, folds its neighbours and the other org, logs it once', async () => {
    // Rows as a faulty writer (or an older server) might have stored them, in one transaction
    // with a good row: a business event without a metric cannot enter user_day_business.
    // The rows go where ingest would have put them: the shard of their user.
    await h.ctx.shards.of(acme.orgId, 'q-user').db.execute(sql`
      insert into events (org_id, event_id, type, experiment_id, user_id, variant, occurred_at,
        received_at, business_metric, value)
      values
        (${acme.orgId}, 'q-good-1', 'exposure', ${exp}, 'q-user', 'control', now(), now(), null, null),
        (${acme.orgId}, 'q-bad', 'business_event', ${exp}, 'q-user', 'control', now(), now(), null, 5),
        (${acme.orgId}, 'q-good-2', 'exposure', ${exp}, 'q-user', 'control', now(), now(), null, null)`);
    const sent = await probe.send(other.publishable, [
      exposureOf(otherExp, 'q-other-1', 'q-other-user'),
    ]);
    expect(sent.statusCode).toBe(202);

    const { lines, log } = capturingLogger();
    const worker = new FoldWorker(h.ctx.eventLog, log);
    expect(await worker.foldAll()).toBe(3);
    expect(await worker.foldAll()).toBe(0);
    expect(await h.ctx.eventLog.depth()).toBe(0);

    expect(await probe.foldedExposures('q-user')).toBe(2);
    expect(await probe.foldedExposures('q-other-user')).toBe(1);
    // the event itself is kept: accepted data is never lost
    expect(await probe.storedIds(['q-bad'])).toEqual(['q-bad']);

    const listed = (await quarantine()).recent_quarantined;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      org_id: acme.orgId,
      event_id: 'q-bad',
      experiment_id: exp,
      type: 'business_event',
    });
    expect(listed[0]?.reason).toMatch(/^23502 .*metric/);
    const ofOther = await Promise.all(
      h.ctx.shards.all.map((s) => listQuarantined(s.db, { orgId: other.orgId })),
    );
    expect(ofOther.flat()).toEqual([]);
    expect((await quarantine()).quarantined_by_org).toEqual([{ org_id: acme.orgId, events: 1 }]);

    const quarantineLines = lines.filter((l) => l.event_id === 'q-bad');
    expect(quarantineLines).toHaveLength(1);
    expect(quarantineLines[0]).toMatchObject({ level: 40, org_id: acme.orgId });
  });

  it('later events of every org keep folding past the quarantined row', async () => {
    const res = await probe.send(acme.secret, [exposureOf(exp, 'q-after', 'q-user')]);
    expect(res.statusCode).toBe(202);
    expect(await h.ctx.worker.foldAll()).toBe(1);
    expect(await probe.foldedExposures('q-user')).toBe(3);
    expect((await quarantine()).quarantined_by_org).toEqual([{ org_id: acme.orgId, events: 1 }]);
  });
});

describe('a fold that keeps failing', () => {
  it('is logged when it starts failing, when the failure changes and when it recovers — not on every retry', () => {
    const { lines, log } = capturingLogger();
    const failures = new FailureLog(log, 'ingest drain');
    for (let i = 0; i < 100; i++) failures.failed(new Error('connection refused'));
    failures.failed(new Error('stack depth limit exceeded'));
    failures.failed(new Error('stack depth limit exceeded'));
    failures.succeeded();
    failures.succeeded();
    expect(lines.map((l) => [l.level, l.msg, l.retries])).toEqual([
      [50, 'ingest drain failed; retrying (logged once until it changes)', undefined],
      [50, 'ingest drain failed; retrying (logged once until it changes)', undefined],
      [30, 'ingest drain recovered', 1],
    ]);
    expect(lines[0]?.err).toMatchObject({ message: 'connection refused' });
  });
});
