import { createBucketer } from '@arbiter/bucketing';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Arbiter } from '../../../clients/typescript/src/index.ts';
import { events, targetingTallies } from '../src/db/schema.ts';
import { eligibility, eligibilityWorld } from '../src/domain/experiments/eligibility.ts';
import { seeded } from './support/analysis-data.ts';
import { experimentConfig, type Harness, startHarness } from './support/harness.ts';

// The TypeScript client against the built server: users with random attributes reach a targeted
// experiment behind a holdout and a layer; the tallies the client reports add up to the users
// that reached the targeting, as the server's own evaluator decides it, and no excluded user
// sent an exposure. The route takes the secret key only: a client holding the publishable key
// sends none.

const USERS = 1_500;
const TARGETING = { $and: [{ plan: { $in: ['pro', 'team'] } }, { locale: { $regexi: '^en' } }] };

let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
let baseUrl: string;
let experimentId: string;

async function created(url: string, payload: object): Promise<{ id: string }> {
  const res = await h.call(acme.admin, { method: 'POST', url, payload });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

beforeAll(async () => {
  h = await startHarness();
  baseUrl = await h.app.listen({ port: 0, host: '127.0.0.1' });
  acme = await h.org('tallies-client-ts');
  await created('/v1/layers', { name: 'tally-layer', salt: 'tally-layer-salt', bucket_count: 100 });
  experimentId = (
    await created(
      '/v1/experiments',
      experimentConfig({
        name: 'tallied',
        salt: 'tallied-salt',
        targeting: TARGETING,
        layer: 'tally-layer',
        layer_weight: 70,
        // A tenth of the buckets in no arm: some matched users are not enrolled.
        allocation: [
          { variant: 'control', weight: 45 },
          { variant: 'treatment', weight: 45 },
        ],
      }),
    )
  ).id;
  await created('/v1/holdouts', {
    name: 'tally-holdout',
    salt: 'tally-holdout-salt',
    bucket_count: 100,
    percent: 10,
    experiments: ['tallied'],
  });
});
afterAll(() => h?.close());

/** Random attributes: about a third of the users match TARGETING. */
function randomAttributes(random: () => number): Record<string, unknown> {
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)] as T;
  return { plan: pick(['free', 'pro', 'team']), locale: pick(['en-US', 'EN-gb', 'de-DE']) };
}

/** Each user's decision by the server's evaluator over the config it serves the clients. */
async function serverDecisions(users: Array<[string, Record<string, unknown>]>) {
  const config = (await h.ingest(acme.secret, { method: 'GET', url: '/v1/config' })).json();
  const raw = config.experiments.find((e: { id: string }) => e.id === experimentId);
  const experiment = { ...raw, bucketOf: createBucketer(raw.salt, raw.bucket_count) };
  const world = eligibilityWorld(config);
  return new Map(users.map(([u, a]) => [u, eligibility(experiment, u, a, world)]));
}

describe('targeting tallies from the TypeScript client', () => {
  it('add up to the users that reached the targeting, with no exposure for the excluded', async () => {
    const random = seeded(29).next;
    const users = Array.from(
      { length: USERS },
      (_, i) => [`tally-user-${i}`, randomAttributes(random)] as [string, Record<string, unknown>],
    );
    const client = new Arbiter({ apiKey: acme.secret, baseUrl, flushIntervalMs: 3_600_000 });
    expect(await client.ready()).toBe(true);
    // Twice: a user counts once a day.
    for (const [user, attributes] of [...users, ...users])
      client.assign('tallied', user, attributes);
    await client.close();

    const decided = await serverDecisions(users);
    const reasons = [...decided.values()].map((d) => d.reason ?? 'enrolled');
    const reached = reasons.filter((r) => r !== 'held_out' && r !== 'not_in_layer').length;
    const excluded = new Set(
      [...decided].filter(([, d]) => d.reason === 'not_targeted').map(([u]) => u),
    );
    // Every branch is in the sample.
    expect(new Set(reasons)).toEqual(
      new Set(['held_out', 'not_in_layer', 'not_targeted', 'not_enrolled', 'enrolled']),
    );

    const rows = await h.ctx.db
      .select()
      .from(targetingTallies)
      .where(eq(targetingTallies.experimentId, experimentId));
    expect(rows).toHaveLength(1);
    expect(rows[0]?.matched).toBe(reached - excluded.size);
    expect(rows[0]?.excluded).toBe(excluded.size);

    const exposed = await h.ctx.db
      .select({ user: events.userId })
      .from(events)
      .where(and(eq(events.experimentId, experimentId), eq(events.type, 'exposure')));
    expect(exposed.length).toBeGreaterThan(0);
    expect(exposed.filter((e) => excluded.has(e.user))).toEqual([]);
  });

  it('are not sent by a client holding the publishable key, and it warns of nothing', async () => {
    const rows = () =>
      h.ctx.db
        .select()
        .from(targetingTallies)
        .where(eq(targetingTallies.experimentId, experimentId));
    const before = await rows();
    const warned: string[] = [];
    const logger = { warn: (m: string) => warned.push(m), error: (m: string) => warned.push(m) };
    const client = new Arbiter({
      apiKey: acme.publishable,
      baseUrl,
      flushIntervalMs: 3_600_000,
      logger,
    });
    expect(await client.ready()).toBe(true);
    for (let i = 0; i < 200; i++) client.assign('tallied', `pk-user-${i}`, { plan: 'free' });
    await client.close();
    expect(await rows()).toEqual(before);
    expect(warned).toEqual([]);
  });
});
