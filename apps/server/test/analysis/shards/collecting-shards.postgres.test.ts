import { bucketOf, variantForBucket } from '@arbiter/bucketing';
import { count, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events } from '../../../src/db/schema.ts';
import { ingestAll, seeded } from '../../support/analysis-data.ts';
import { experimentConfig, metric } from '../../support/builders.ts';
import { freshShards } from '../../support/database.ts';
import { type Harness, startHarness } from '../../support/harness.ts';

// The collecting answer of an experiment whose events are on two shards is the answer of one
// database holding the same events, field by field: the evaluated events per arm, and each
// primary metric's users with a value, users needed and days to go.

const USERS = 350;
/** One instant for both apps: the estimate's days to go follow the part of today elapsed. */
const at = new Date();
const clock = { now: () => at };

let alone: Harness;
let sharded: Harness;
let one: Awaited<ReturnType<typeof collectingOn>>;
let two: Awaited<ReturnType<typeof collectingOn>>;

beforeAll(async () => {
  alone = await startHarness({}, { clock, shards: [] });
  sharded = await startHarness({}, { clock, shards: await freshShards(2) });
  one = await collectingOn(alone);
  two = await collectingOn(sharded);
}, 120_000);
afterAll(async () => {
  await alone?.close();
  await sharded?.close();
});

/** The same experiment and events on `h`; the collecting answer of its results route. */
async function collectingOn(h: Harness) {
  const org = await h.org('collecting-shards');
  const res = await h.call(org.admin, {
    method: 'POST',
    url: '/v1/experiments',
    payload: experimentConfig({
      name: 'collecting-on-shards',
      salt: 'collecting-on-shards-salt',
      metrics: [
        { ...metric('revenue', 'revenue', 'welch_t', 'primary'), mde: 0.1 },
        metric('latency', 'latency', 'welch_t', 'guardrail'),
      ],
    }),
  });
  expect(res.statusCode, res.body).toBe(201);
  const exp = res.json() as { id: string; bucket_ranges: never };
  const rng = seeded(41);
  const sent: object[] = [];
  const timestamp = at.toISOString();
  for (let i = 0; i < USERS; i++) {
    const user = `c${i}`;
    const arm = variantForBucket(
      exp.bucket_ranges,
      bucketOf('collecting-on-shards-salt', user, 1000),
    );
    const base = { experiment_id: exp.id, user_id: user, timestamp };
    sent.push({ ...base, event_id: `cx-${i}`, type: 'exposure' });
    sent.push({
      ...base,
      event_id: `cv-${i}`,
      type: 'business_event',
      business_metric: 'revenue',
      value: Math.max(0, rng.normal(arm === 'control' ? 50 : 55, 20)),
    });
  }
  await ingestAll(h, org.secret, sent);
  const answer = await h.call(org.admin, {
    method: 'GET',
    url: `/v1/experiments/${exp.id}/results`,
  });
  const live = () => h.call(org.admin, { method: 'GET', url: `/v1/experiments/${exp.id}/live` });
  return { id: exp.id, status: answer.statusCode, body: answer.json(), live };
}

describe('a collecting experiment on two shards', () => {
  it('answers what one database answers, field by field', async () => {
    // The events are on both shards, none in the control database.
    const perShard = await Promise.all(
      sharded.ctx.shards.all.map(async (s) => {
        const [row] = await s.db.select({ n: count() }).from(events);
        return Number(row?.n);
      }),
    );
    expect(perShard.every((n) => n > 0)).toBe(true);
    expect(perShard.reduce((a, b) => a + b, 0)).toBe(2 * USERS);
    const [control] = await sharded.ctx.db.select({ n: sql<number>`count(*)` }).from(events);
    expect(Number(control?.n)).toBe(0);

    expect(one.status).toBe(404);
    expect(two.status).toBe(404);
    expect(one.body.type).toBe('/problems/results-collecting');
    // Not an empty answer: every user is counted, and the estimate has what it needs.
    const perArm = one.body.events_per_arm as Record<string, number>;
    expect(Object.values(perArm).reduce((a, b) => a + b, 0)).toBe(USERS);
    const [estimate] = one.body.primary_metrics;
    expect(estimate.n_per_arm).toEqual(perArm);
    expect(estimate.users_needed_per_arm).toBeGreaterThan(0);
    expect(estimate.days_to_decision).not.toBeNull();
    // Only the instance names the experiment, whose id differs between the two apps.
    expect(two.body.instance).toBe(`/v1/experiments/${two.id}/results`);
    expect({ ...two.body, instance: null }).toEqual({ ...one.body, instance: null });
  });

  it('shows the live view one database shows, its distributions included', async () => {
    const [onOne, onTwo] = [await one.live(), await two.live()];
    expect(onOne.statusCode).toBe(200);
    expect(onTwo.statusCode).toBe(200);
    const revenue = onOne.json().distributions.revenue;
    const counted = Object.values(revenue.counts as Record<string, number[]>)
      .flat()
      .reduce((a, b) => a + b, 0);
    expect(counted).toBe(USERS);
    expect({ ...onTwo.json(), experiment_id: null }).toEqual({
      ...onOne.json(),
      experiment_id: null,
    });
  });
});
