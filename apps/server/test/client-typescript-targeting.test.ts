import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Arbiter } from '../../../clients/typescript/src/index.ts';
import { events } from '../src/db/schema.ts';
import { runNightlyFor, today } from './support/analysis-data.ts';
import { experimentConfig, type Harness, startHarness } from './support/harness.ts';

// The TypeScript client and the server on a targeted experiment, three experiments sharing one
// layer (one of them targeted), and a holdout over one experiment outside the layer and one
// inside it: the same answer for every user and attributes, exposures stored for exactly the
// users admitted (and the holdout's for every user who reached it), and an SRM check that the
// excluded users leave clean.

const TARGETING = {
  $and: [
    { plan: { $in: ['pro', 'team'] } },
    { locale: { $regexi: '^en' } },
    { 'app.version': { $vgte: '2.4.0' } },
  ],
};
const LAYER = 'parity-layer';
/** The layer's experiments: their weights fill the layer, so each layer bucket has one owner. */
const LAYERED = [
  { name: 'layered-targeted', layer_weight: 50, targeting: { locale: { $regexi: '^en' } } },
  { name: 'layered-open', layer_weight: 40 },
  { name: 'layered-held', layer_weight: 10 },
] as const;
const HELD = ['held-open', 'layered-held'];
const EXPERIMENTS = ['targeted-parity', ...LAYERED.map((e) => e.name), 'held-open'];
const USERS = 10_000;
/** Ten thousand in-process requests per experiment: well past vitest's 60 s default under load. */
const HEAVY_TIMEOUT_MS = 480_000;

let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
let baseUrl: string;
let client: Arbiter;
/** Experiment name to id, and the holdout's id. */
const ids = new Map<string, string>();
let holdoutId: string;
interface Answer {
  variant: string | null;
  reason?: string;
}
/** Each experiment's answers from /v1/assign, by user; filled by the first test. */
const expected = new Map<string, Map<string, Answer>>();

/** Attributes drawn from a fixed sequence; about a quarter of the users match TARGETING. */
function attributesOf(i: number): Record<string, unknown> {
  const plan = ['free', 'pro', 'team', undefined][i % 4];
  const locale = ['en-US', 'EN-gb', 'de-DE'][(i >> 2) % 3];
  const version = ['2.3.9', '2.4.0', '2.10.1', 'v3.0.0-beta'][(i >> 4) % 4];
  return { ...(plan === undefined ? {} : { plan }), locale, app: { version } };
}

async function created(url: string, payload: object): Promise<{ id: string }> {
  const res = await h.call(acme.admin, { method: 'POST', url, payload });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

const allocation = [
  { variant: 'control', weight: 45 },
  { variant: 'treatment', weight: 45 },
];

beforeAll(async () => {
  h = await startHarness({ ARBITER_RATE_LIMIT_SECRET_PER_MINUTE: '10000000' });
  baseUrl = await h.app.listen({ port: 0, host: '127.0.0.1' });
  acme = await h.org('targeting-parity');
  const targeted = await created(
    '/v1/experiments',
    experimentConfig({ name: 'targeted-parity', targeting: TARGETING, allocation }),
  );
  ids.set('targeted-parity', targeted.id);
  await created('/v1/layers', { name: LAYER, salt: 'parity-layer-salt', bucket_count: 1000 });
  for (const e of LAYERED) {
    const made = await created(
      '/v1/experiments',
      experimentConfig({ ...e, salt: `salt-${e.name}`, layer: LAYER, allocation }),
    );
    ids.set(e.name, made.id);
  }
  const open = await created(
    '/v1/experiments',
    experimentConfig({ name: 'held-open', salt: 'salt-held-open', allocation }),
  );
  ids.set('held-open', open.id);
  holdoutId = (
    await created('/v1/holdouts', {
      name: 'parity-holdout',
      salt: 'parity-holdout-salt',
      bucket_count: 1000,
      percent: 10,
      experiments: HELD,
    })
  ).id;
  client = new Arbiter({
    apiKey: acme.publishable,
    baseUrl,
    experiments: EXPERIMENTS,
    flushIntervalMs: 3_600_000,
    // every exposure of the run (about 25,000) is queued before the one flush
    queueCapacity: 100_000,
  });
  expect(await client.ready()).toBe(true);
});
afterAll(async () => {
  await client?.close();
  await h?.close();
}, 120_000);

async function serverAnswers(experiment: string): Promise<Map<string, Answer>> {
  const out = new Map<string, Answer>();
  for (let i = 0; i < USERS; i += 250) {
    await Promise.all(
      Array.from({ length: Math.min(250, USERS - i) }, async (_, k) => {
        const user = `user-${i + k}`;
        const res = await h.ingest(acme.secret, {
          method: 'POST',
          url: '/v1/assign',
          payload: { experiment_id: experiment, user_id: user, attributes: attributesOf(i + k) },
        });
        const { variant, reason } = res.json() as Answer;
        out.set(user, reason === undefined ? { variant } : { variant, reason });
      }),
    );
  }
  return out;
}

/** The users whose answer passes `test`, sorted: answers arrive in the order requests end. */
const usersWhere = (answers: Map<string, Answer>, test: (a: Answer) => boolean) =>
  [...answers]
    .filter(([, a]) => test(a))
    .map(([u]) => u)
    .sort();

describe('targeting, layers and holdouts in the TypeScript client against the server', () => {
  it(
    'assigns every user as /v1/assign does, and sends exposures only for admitted users',
    async () => {
      for (const name of EXPERIMENTS) expected.set(name, await serverAnswers(name));
      for (const name of EXPERIMENTS) {
        const got = new Map<string, string | null>();
        for (let i = 0; i < USERS; i++) {
          got.set(`user-${i}`, client.assign(name, `user-${i}`, attributesOf(i)));
        }
        const want = new Map([...(expected.get(name) ?? [])].map(([u, a]) => [u, a.variant]));
        expect(got, name).toEqual(want);
      }
      const answers = (name: string) => expected.get(name) ?? new Map<string, Answer>();
      const targeted = answers('targeted-parity');
      const admitted = usersWhere(targeted, (a) => a.variant !== null);
      // both sides of the targeting, and both arms, are in the sample
      expect(admitted.length).toBeGreaterThan(USERS / 10);
      expect(admitted.length).toBeLessThan(USERS / 2);
      expect(new Set([...targeted.values()].map((a) => a.variant))).toEqual(
        new Set(['control', 'treatment', null]),
      );

      // The layer: no user has a variant in two of its experiments, and each reason is reached.
      for (const [user] of targeted) {
        const inLayer = LAYERED.filter((e) => answers(e.name).get(user)?.variant != null);
        expect(inLayer.length, user).toBeLessThanOrEqual(1);
      }
      for (const e of LAYERED) {
        expect(usersWhere(answers(e.name), (a) => a.variant !== null).length).toBeGreaterThan(200);
        expect(
          usersWhere(answers(e.name), (a) => a.reason === 'not_in_layer').length,
        ).toBeGreaterThan(USERS / 3);
      }
      const excludedInLayer = usersWhere(
        answers('layered-targeted'),
        (a) => a.reason === 'not_targeted',
      );
      expect(excludedInLayer.length).toBeGreaterThan(500);

      // The holdout: the same users are held out of both its experiments, and get null there.
      const heldOut = usersWhere(answers('held-open'), (a) => a.reason === 'held_out');
      expect(usersWhere(answers('layered-held'), (a) => a.reason === 'held_out')).toEqual(heldOut);
      expect(heldOut.length).toBeGreaterThan(USERS / 20);
      expect(heldOut.length).toBeLessThan(USERS / 5);
      for (const name of HELD) {
        for (const user of heldOut) {
          const i = Number(user.slice('user-'.length));
          expect(client.assign(name, user, attributesOf(i)), `${name} ${user}`).toBeNull();
        }
      }
      // ...and nowhere else: a holdout that names other experiments is no reason outside them.
      for (const name of ['targeted-parity', 'layered-targeted', 'layered-open'])
        expect(usersWhere(answers(name), (a) => a.reason === 'held_out')).toEqual([]);

      await client.flush();
      const stored = await h.ctx.db
        .select({ experiment: events.experimentId, user: events.userId, variant: events.variant })
        .from(events)
        .where(and(eq(events.orgId, acme.orgId), eq(events.type, 'exposure')));
      const storedFor = (id: string) =>
        new Map(stored.filter((e) => e.experiment === id).map((e) => [e.user, e.variant]));
      let exposures = 0;
      for (const name of EXPERIMENTS) {
        const enrolled = usersWhere(answers(name), (a) => a.variant !== null);
        exposures += enrolled.length;
        expect(storedFor(ids.get(name) ?? ''), name).toEqual(
          new Map(enrolled.map((u) => [u, answers(name).get(u)?.variant])),
        );
      }
      // Users the targeting turned away sent nothing for the experiment.
      const exposed = new Set(storedFor(ids.get('layered-targeted') ?? '').keys());
      expect(excludedInLayer.filter((u) => exposed.has(u))).toEqual([]);
      // Every user reached the holdout (it comes first), once a day: held out or general.
      const held = new Set(heldOut);
      expect(storedFor(holdoutId)).toEqual(
        new Map([...targeted.keys()].map((u) => [u, held.has(u) ? 'holdout' : 'general'])),
      );
      expect(stored).toHaveLength(exposures + USERS);
    },
    HEAVY_TIMEOUT_MS,
  );

  it(
    "keeps the experiment's SRM check clean: only admitted users are counted, in the allocation's split",
    async () => {
      const admitted = [...(expected.get('targeted-parity')?.values() ?? [])]
        .map((a) => a.variant)
        .filter((v) => v !== null);
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
