import { afterEach, describe, expect, it } from 'vitest';
import type { Arbiter, NodeArbiterOptions } from '../src/index.ts';
import type { Tally } from '../src/internal/targeting-tallies.ts';
import type { ConfigDoc, FakeArbiter } from './support/fake-arbiter.ts';
import { startQuietClient } from './support/quiet-client.ts';
import { readTestdata } from './support/testdata.ts';

const shared = readTestdata('targeting-tallies.json') as {
  tallies: Record<string, { matched: number; excluded: number }>;
};
const eligibility = readTestdata('eligibility.json') as {
  config: ConfigDoc;
  cases: Array<{ experiment: string; user_id: string; attributes?: Record<string, unknown> }>;
};
const nameOf = new Map(eligibility.config.experiments.map((e) => [e.id, e.name]));

let fake: FakeArbiter;
let client: Arbiter;
afterEach(async () => {
  await client?.close();
  await fake?.close();
});

async function start(options: Partial<NodeArbiterOptions> = {}, config = eligibility.config) {
  // Tallies go with the secret key only.
  const started = await startQuietClient(config, {
    apiKey: 'svc_sk_test',
    retryBaseDelayMs: 1,
    retryMaxDelayMs: 1,
    ...options,
  });
  ({ fake, client } = started);
  return started.logger;
}

/** The fake server's tallies summed per experiment name, after checking they are all today's. */
function received(): Record<string, { matched: number; excluded: number }> {
  const out: Record<string, { matched: number; excluded: number }> = {};
  // Taken now, not at load: a run that crosses midnight must not fail the check.
  const today = new Date().toISOString().slice(0, 10);
  for (const t of fake.tallies as Tally[]) {
    expect(t.day).toBe(today);
    const name = nameOf.get(t.experiment_id) ?? t.experiment_id;
    const sum = out[name] ?? { matched: 0, excluded: 0 };
    out[name] = sum;
    sum.matched += t.matched;
    sum.excluded += t.excluded;
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

function assignEveryCase(): void {
  for (const c of eligibility.cases) client.assign(c.experiment, c.user_id, c.attributes);
  for (const c of eligibility.cases) client.assign(c.experiment, c.user_id, {});
}

describe('testdata/targeting-tallies.json', () => {
  it('reports the distinct users that reached each targeting, matched or excluded', async () => {
    await start();
    assignEveryCase();
    await client.flush();
    expect(received()).toEqual(shared.tallies);
    // Exposures are unchanged by the tallies sharing their table: one per enrolled user.
    const exposed = [...fake.events.values()].filter((e) => e.type === 'exposure');
    expect(exposed.length).toBeGreaterThan(0);
  });

  it('reports the same with trackExposures off and tallies asked for, and sends no exposure', async () => {
    await start({ trackExposures: false, trackTargetingTallies: true });
    assignEveryCase();
    await client.flush();
    expect(received()).toEqual(shared.tallies);
    expect(fake.events.size).toBe(0);
  });

  it('tallies nothing by default with trackExposures off (the switch follows it)', async () => {
    await start({ trackExposures: false });
    assignEveryCase();
    await client.flush();
    expect(fake.tallies).toEqual([]);
    expect(fake.events.size).toBe(0);
  });

  it('sends nothing with trackTargetingTallies off, and the same exposures', async () => {
    await start({ trackTargetingTallies: false });
    assignEveryCase();
    await client.flush();
    expect(fake.tallies).toEqual([]);
    expect(fake.events.size).toBeGreaterThan(0);
  });
});

describe('the secret key only', () => {
  const talliesWarned = (lines: readonly string[]) =>
    lines.filter((l) => l.includes('targeting tallies'));

  it('a publishable-key client sends no tallies, and warns of nothing', async () => {
    const logger = await start({ apiKey: 'svc_pk_test' });
    assignEveryCase();
    await client.flush();
    await client.close();
    expect(fake.tallyRequests).toBe(0);
    expect(talliesWarned(logger.lines)).toEqual([]);
    // Exposures are sent as ever.
    expect(fake.events.size).toBeGreaterThan(0);
  });

  it('asked for tallies with a publishable key, warns once at construction and sends none', async () => {
    const logger = await start({ apiKey: 'svc_pk_test', trackTargetingTallies: true });
    expect(talliesWarned(logger.lines)).toHaveLength(1);
    expect(talliesWarned(logger.lines)[0]).toContain('secret key');
    assignEveryCase();
    await client.flush();
    await client.close();
    expect(fake.tallyRequests).toBe(0);
    expect(talliesWarned(logger.lines)).toHaveLength(1);
  });
});

describe('delivery of the tallies', () => {
  const excludedOnce = async () => {
    client.assign('pro-english', 'u-free', { plan: 'free' });
    client.assign('pro-english', 'u-pro', { plan: 'pro', locale: 'en-US' });
  };

  it('keeps tallies the API could not take and sends them, merged, with the next flush', async () => {
    await start({ maxAttempts: 2 });
    fake.tallyFaults.push(503, 503);
    await excludedOnce();
    await client.flush();
    expect(fake.tallies).toEqual([]);
    client.assign('pro-english', 'u-other', { plan: 'free' });
    await client.flush();
    expect(received()).toEqual({ 'pro-english': { matched: 1, excluded: 2 } });
    expect(fake.tallies).toHaveLength(1);
  });

  it('drops tallies the API refuses, with a warning, and never throws', async () => {
    const logger = await start();
    fake.tallyFaults.push(400);
    await excludedOnce();
    await expect(client.flush()).resolves.toBeUndefined();
    expect(logger.lines.some((l) => l.includes('dropped 1 targeting tallies'))).toBe(true);
    // Only what was counted since: the refused tallies were not kept.
    client.assign('pro-english', 'u-new', { plan: 'free' });
    await client.flush();
    expect(received()).toEqual({ 'pro-english': { matched: 0, excluded: 1 } });
  });

  it('sends the tallies on close()', async () => {
    await start();
    await excludedOnce();
    await client.close();
    expect(received()).toEqual({ 'pro-english': { matched: 1, excluded: 1 } });
  });

  it('counts a user once, on the first check of the day, matched or excluded, in any order', async () => {
    await start();
    const pro = { plan: 'pro', locale: 'en-US' };
    // In one batch of pending checks: matched, then excluded.
    expect(client.assign('pro-english', 'u-1', pro)).not.toBeNull();
    client.assign('pro-english', 'u-1', { plan: 'free' });
    // Excluded in one batch, then matched with a new exposure in the next.
    client.assign('pro-english', 'u-2', { plan: 'free' });
    client.stats();
    expect(client.assign('pro-english', 'u-2', pro)).not.toBeNull();
    client.assign('pro-english', 'u-2', pro);
    await client.flush();
    expect(received()).toEqual({ 'pro-english': { matched: 1, excluded: 1 } });
    const exposed = [...fake.events.values()].filter((e) => e.type === 'exposure');
    expect(exposed.map((e) => e.user_id).sort()).toEqual(['u-1', 'u-2']);
  });

  it('counts a user again once the day’s table was full and forgot everyone (an over-count)', async () => {
    await start({ exposureDedupCapacity: 1 });
    for (const user of ['a', 'b', 'a']) client.assign('pro-english', user, { plan: 'free' });
    await client.flush();
    expect(received()).toEqual({ 'pro-english': { matched: 0, excluded: 3 } });
  });
});
