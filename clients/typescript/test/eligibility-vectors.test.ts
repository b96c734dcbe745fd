import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Arbiter } from '../src/index.ts';
import { type ConfigDoc, type FakeArbiter, startFakeArbiter } from './support/fake-arbiter.ts';
import { memoryLogger } from './support/logger.ts';

interface EligibilityCase {
  name: string;
  experiment: string;
  user_id: string;
  attributes?: Record<string, unknown>;
  variant: string | null;
}

// The one shared copy of the vectors, read in place as bucketing.json is.
const read = (file: string) =>
  JSON.parse(
    readFileSync(fileURLToPath(new URL(`../../../testdata/${file}`, import.meta.url)), 'utf8'),
  );
const vectors = read('eligibility.json') as { config: ConfigDoc; cases: EligibilityCase[] };

let fake: FakeArbiter;
let client: Arbiter;

beforeAll(async () => {
  fake = await startFakeArbiter({ config: vectors.config });
  client = new Arbiter({
    apiKey: fake.apiKey,
    baseUrl: fake.baseUrl,
    flushIntervalMs: 60_000,
    logger: memoryLogger(),
  });
  expect(await client.ready()).toBe(true);
});
afterAll(async () => {
  await client.close();
  await fake.close();
});

describe('testdata/eligibility.json through the client', () => {
  it('has targeted users on both sides of every readable condition', () => {
    const targeted = vectors.cases.filter((c) => c.experiment === 'pro-english');
    expect(targeted.some((c) => c.variant !== null)).toBe(true);
    expect(targeted.some((c) => c.variant === null)).toBe(true);
  });

  it('assigns, prompts and merges variables as each case says, and never throws', () => {
    for (const c of vectors.cases) {
      const got = {
        name: c.name,
        assign: client.assign(c.experiment, c.user_id, c.attributes),
        prompt: client.getPrompt(c.experiment, c.user_id, 'default', c.attributes).variant,
        variables: client.getVariables(c.experiment, c.user_id, { v: 1 }, c.attributes),
      };
      expect(got).toEqual({
        name: c.name,
        assign: c.variant,
        prompt: c.variant,
        variables: { v: 1 },
      });
    }
  });

  it('sends an exposure for each enrolled case and none for a user the targeting leaves out', async () => {
    await client.flush();
    const exposed = new Set(
      [...fake.events.values()].map((e) => `${e.experiment_id}|${e.user_id}|${e.variant}`),
    );
    const idOf = new Map(vectors.config.experiments.map((e) => [e.name, e.id]));
    for (const c of vectors.cases) {
      const key = `${idOf.get(c.experiment)}|${c.user_id}|${c.variant}`;
      expect({ name: c.name, exposed: exposed.has(key) }).toEqual({
        name: c.name,
        exposed: c.variant !== null,
      });
    }
    expect(fake.events.size).toBe(vectors.cases.filter((c) => c.variant !== null).length);
  });

  it('gives interceptModelCall the variant the attributes it is given admit', async () => {
    const c = vectors.cases.find((x) => x.experiment === 'pro-english' && x.variant !== null);
    if (c === undefined) throw new Error('no enrolled pro-english case');
    const seen: Array<string | null> = [];
    const fn = async (variant: string | null) => {
      seen.push(variant);
    };
    await client.interceptModelCall(c.experiment, c.user_id, fn, c.attributes);
    // without attributes the targeting reads {}: no plan, so not targeted
    await client.interceptModelCall(c.experiment, c.user_id, fn);
    expect(seen).toEqual([c.variant, null]);
  });
});
