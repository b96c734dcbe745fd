import { evalCondition } from '@arbiter/conditions';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Arbiter } from '../../../clients/typescript/src/index.ts';
import { experimentConfig, type Harness, startHarness } from './support/harness.ts';

// A pattern stored before the save-time rule, refused by the ReDoS analyser only: after the
// start-up scan the server never runs it, and /v1/config serves a condition that matches no
// one, so the TypeScript client assigns exactly as /v1/assign does.

// Statically safe, but searched unanchored it backtracks to the fourth power of the length.
const SLOW = 'a*a*a*b';
/** As stored: run as written, it would admit every pro user and every name with a "b". */
const PLANTED = { $or: [{ name: { $regex: SLOW } }, { plan: 'pro' }] };
const USERS = 200;

let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
let baseUrl: string;
let experimentId: string;

function attributesOf(i: number): Record<string, unknown> {
  return { plan: ['pro', 'free'][i % 2], name: ['aaab', 'xyz', 'b'][(i >> 1) % 3] };
}

const config = (etag?: string) =>
  h.ingest(acme.publishable, {
    method: 'GET',
    url: '/v1/config',
    headers: etag === undefined ? {} : { 'if-none-match': etag },
  });

beforeAll(async () => {
  h = await startHarness({ ARBITER_RATE_LIMIT_SECRET_PER_MINUTE: '10000000' });
  baseUrl = await h.app.listen({ port: 0, host: '127.0.0.1' });
  acme = await h.org('denied-pattern');
  const res = await h.call(acme.admin, {
    method: 'POST',
    url: '/v1/experiments',
    payload: experimentConfig({ name: 'denied', targeting: { plan: 'pro' } }),
  });
  expect(res.statusCode, res.body).toBe(201);
  experimentId = res.json().id;
  // Written behind the API's back, as a row stored before the rule.
  await h.ctx.db.execute(
    sql`update experiment_versions set config = jsonb_set(config, '{targeting}', ${JSON.stringify(PLANTED)}::jsonb)
        where experiment_id = ${experimentId}`,
  );
  h.ctx.orgState.invalidate(acme.orgId);
});
afterAll(() => h.close());

describe('an experiment whose stored targeting holds a denied pattern', () => {
  it('is served, after the scan, with targeting that matches no one and a new ETag', async () => {
    const before = await config();
    expect(before.json().experiments[0].targeting).toEqual(PLANTED);
    await h.ctx.patterns.scan(new Date());
    // A client holding the bytes from before the scan gets the new ones, not a 304.
    const after = await config(before.headers.etag as string);
    expect(after.statusCode).toBe(200);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(after.json().experiments[0].targeting).toEqual({ $not: {} });
    expect((await config(after.headers.etag as string)).statusCode).toBe(304);
    // The stored version and the experiment's read are left as they were.
    const read = await h.call(acme.admin, { method: 'GET', url: '/v1/experiments/denied' });
    expect(read.json().targeting).toEqual(PLANTED);
  });

  it('is assigned by the TypeScript client as /v1/assign assigns it: to no one', async () => {
    const client = new Arbiter({
      apiKey: acme.publishable,
      baseUrl,
      experiments: ['denied'],
      flushIntervalMs: 3_600_000,
    });
    try {
      expect(await client.ready()).toBe(true);
      let wouldMatch = 0;
      for (let i = 0; i < USERS; i++) {
        const attributes = attributesOf(i);
        const res = await h.ingest(acme.secret, {
          method: 'POST',
          url: '/v1/assign',
          payload: { experiment_id: 'denied', user_id: `user-${i}`, attributes },
        });
        expect(res.json()).toMatchObject({ variant: null, reason: 'not_targeted' });
        expect(client.assign('denied', `user-${i}`, attributes), `user-${i}`).toBeNull();
        if (evalCondition(attributes, PLANTED, {})) wouldMatch += 1;
      }
      // The stored condition, run as written, would have admitted most of these users.
      expect(wouldMatch).toBeGreaterThan(USERS / 2);
    } finally {
      await client.close();
    }
  });
});
