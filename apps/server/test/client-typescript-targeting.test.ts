import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Arbiter } from '../../../clients/typescript/src/index.ts';
import { events } from '../src/db/schema.ts';
import { runNightlyFor, today } from './support/analysis-data.ts';
import { experimentConfig, type Harness, startHarness } from './support/harness.ts';

// The TypeScript client and the server on one targeted experiment: the same answer for every
// user and attributes, an exposure stored for exactly the users the targeting admits, and an
// SRM check that the excluded users leave clean.

const TARGETING = {
  $and: [
    { plan: { $in: ['pro', 'team'] } },
    { locale: { $regexi: '^en' } },
    { 'app.version': { $vgte: '2.4.0' } },
  ],
};
const USERS = 10_000;
/** Ten thousand in-process requests: well past vitest's 60 s default under the whole suite's load. */
const HEAVY_TIMEOUT_MS = 240_000;

let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
let baseUrl: string;
let client: Arbiter;
/** Each user's answer from /v1/assign, filled by the first test. */
const expected = new Map<string, string | null>();

/** Attributes drawn from a fixed sequence; about a quarter of the users match. */
function attributesOf(i: number): Record<string, unknown> {
  const plan = ['free', 'pro', 'team', undefined][i % 4];
  const locale = ['en-US', 'EN-gb', 'de-DE'][(i >> 2) % 3];
  const version = ['2.3.9', '2.4.0', '2.10.1', 'v3.0.0-beta'][(i >> 4) % 4];
  return { ...(plan === undefined ? {} : { plan }), locale, app: { version } };
}

beforeAll(async () => {
  h = await startHarness({ ARBITER_RATE_LIMIT_SECRET_PER_MINUTE: '10000000' });
  baseUrl = await h.app.listen({ port: 0, host: '127.0.0.1' });
  acme = await h.org('targeting-parity');
  const created = await h.call(acme.admin, {
    method: 'POST',
    url: '/v1/experiments',
    payload: experimentConfig({
      name: 'targeted-parity',
      targeting: TARGETING,
      allocation: [
        { variant: 'control', weight: 45 },
        { variant: 'treatment', weight: 45 },
      ],
    }),
  });
  expect(created.statusCode).toBe(201);
  client = new Arbiter({
    apiKey: acme.publishable,
    baseUrl,
    experiments: ['targeted-parity'],
    flushIntervalMs: 3_600_000,
  });
  expect(await client.ready()).toBe(true);
});
afterAll(async () => {
  await client?.close();
  await h?.close();
}, 120_000);

describe('targeting in the TypeScript client against the server', () => {
  it(
    'assigns every user as /v1/assign does, and sends exposures only for admitted users',
    async () => {
      for (let i = 0; i < USERS; i += 250) {
        await Promise.all(
          Array.from({ length: Math.min(250, USERS - i) }, async (_, k) => {
            const user = `user-${i + k}`;
            const res = await h.ingest(acme.secret, {
              method: 'POST',
              url: '/v1/assign',
              payload: {
                experiment_id: 'targeted-parity',
                user_id: user,
                attributes: attributesOf(i + k),
              },
            });
            expected.set(user, res.json().variant);
          }),
        );
      }
      const got = new Map<string, string | null>();
      for (let i = 0; i < USERS; i++) {
        got.set(`user-${i}`, client.assign('targeted-parity', `user-${i}`, attributesOf(i)));
      }
      expect(got).toEqual(expected);
      const admitted = [...expected].filter(([, v]) => v !== null).map(([u]) => u);
      // both sides of the targeting, and both arms, are in the sample
      expect(admitted.length).toBeGreaterThan(USERS / 10);
      expect(admitted.length).toBeLessThan(USERS / 2);
      expect(new Set(expected.values())).toEqual(new Set(['control', 'treatment', null]));

      await client.flush();
      const stored = await h.ctx.db
        .select({ user: events.userId, variant: events.variant })
        .from(events)
        .where(and(eq(events.orgId, acme.orgId), eq(events.type, 'exposure')));
      expect(new Map(stored.map((e) => [e.user, e.variant]))).toEqual(
        new Map(admitted.map((u) => [u, expected.get(u)])),
      );
      expect(stored).toHaveLength(admitted.length);
    },
    HEAVY_TIMEOUT_MS,
  );

  it(
    "keeps the experiment's SRM check clean: only admitted users are counted, in the allocation's split",
    async () => {
      const admitted = [...expected.values()].filter((v) => v !== null);
      expect(admitted.length).toBeGreaterThan(0);
      const summary = await runNightlyFor(h, today());
      expect(summary.experiments).toContainEqual(
        expect.objectContaining({ name: 'targeted-parity', status: 'computed' }),
      );
      const res = await h.call(acme.admin, {
        method: 'GET',
        url: '/v1/experiments/targeted-parity/results',
      });
      expect(res.statusCode).toBe(200);
      const { srm } = res.json() as {
        srm: { halted: boolean; p_value: number; observed: Record<string, number> };
      };
      // The 10 % of buckets no arm owns and the users the targeting turns away count nowhere.
      expect(srm.observed).toEqual({
        control: admitted.filter((v) => v === 'control').length,
        treatment: admitted.filter((v) => v === 'treatment').length,
      });
      expect(srm.halted).toBe(false);
      expect(srm.p_value).toBeGreaterThan(0.001);
    },
    HEAVY_TIMEOUT_MS,
  );
});
