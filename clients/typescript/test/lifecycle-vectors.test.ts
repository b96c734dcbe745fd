import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeArbiter, startFakeArbiter } from './support/fake-arbiter.ts';
import { startFakeLlm } from './support/fake-llm.ts';
import { readTestdata } from './support/testdata.ts';
import {
  ATTRIBUTE_FORMS,
  expectEveryCase,
  expectedExposures,
  receiver,
  servedVectors,
  type VectorCase,
  type Vectors,
  vectorClient,
} from './support/vectors.ts';

// The one shared copy of the lifecycle vectors, read in place with eligibility.json's runner.
const vectors = readTestdata('lifecycle.json') as Vectors;
const entryOf = (name: string) => vectors.config.experiments.find((e) => e.name === name);
/** An entry's state as the config says it: absent reads as running; archived is no entry. */
const statusOf = (name: string) => {
  const entry = entryOf(name);
  return entry === undefined ? 'archived' : (entry.status ?? 'running');
};
const holdoutIds = new Set((vectors.config.holdouts ?? []).map((h) => h.id));

describe('testdata/lifecycle.json: the cases reach every state', () => {
  it('has a draft, a running, a stopped and an archived experiment, and an entry without status', () => {
    const states = new Set(vectors.cases.map((c) => statusOf(c.experiment)));
    expect([...states].sort()).toEqual(['archived', 'draft', 'running', 'stopped']);
    expect(vectors.config.experiments.some((e) => e.status === undefined)).toBe(true);
    const reasons = new Set(vectors.cases.map((c) => c.reason));
    for (const reason of ['draft', 'unknown_experiment', 'not_targeted', 'held_out']) {
      expect(reasons.has(reason), reason).toBe(true);
    }
  });

  it('sends no exposure of a draft or stopped experiment, and a holdout exposure past a stopped one', () => {
    const idOf = (c: VectorCase) => entryOf(c.experiment)?.id;
    const notRunning = vectors.cases.filter((c) => statusOf(c.experiment) !== 'running');
    for (const c of notRunning) {
      expect(
        c.exposures.filter((e) => e.experiment_id === idOf(c)),
        c.name,
      ).toEqual([]);
    }
    for (const c of vectors.cases.filter((x) => statusOf(x.experiment) === 'draft')) {
      expect(c.exposures, c.name).toEqual([]);
    }
    const stopped = vectors.cases.filter((c) => statusOf(c.experiment) === 'stopped');
    expect(stopped.some((c) => c.exposures.some((e) => holdoutIds.has(e.experiment_id)))).toBe(
      true,
    );
    // Every eligible user of a stopped experiment gets its served variant.
    for (const c of stopped.filter((x) => x.variant !== null)) {
      expect(c.variant, c.name).toBe(entryOf(c.experiment)?.served_variant);
    }
  });
});

describe.each(ATTRIBUTE_FORMS)('with %s', (_form, attributesOf) => {
  describe('testdata/lifecycle.json through assign, getPrompt and getVariables', () => {
    const served = servedVectors(vectors);

    it('gives each case its variant, its prompt and variables, and exactly its exposures', async () => {
      await expectEveryCase(vectors, served, attributesOf);
    });

    it('addresses an experiment by id as by name', () => {
      for (const c of vectors.cases) {
        const id = entryOf(c.experiment)?.id;
        if (id === undefined) continue;
        expect({
          name: c.name,
          variant: served.client.assign(id, c.user_id, attributesOf(c)),
        }).toEqual({
          name: c.name,
          variant: c.variant,
        });
      }
    });
  });

  describe('testdata/lifecycle.json through model calls', () => {
    let fake: FakeArbiter;
    let llm: Awaited<ReturnType<typeof startFakeLlm>>;
    let received: () => Array<Record<string, unknown>>;

    beforeAll(async () => {
      fake = await startFakeArbiter({ config: vectors.config });
      llm = await startFakeLlm();
      received = receiver(fake);
    });
    afterAll(async () => {
      await llm.close();
      await fake.close();
    });

    /** A call sends the case's exposures, then its own record only while the experiment runs. */
    const expectedOfCall = (c: VectorCase) => [
      ...expectedExposures(c),
      ...(c.variant === null || statusOf(c.experiment) !== 'running'
        ? []
        : [{ type: 'model_call', user_id: c.user_id, experiment_id: entryOf(c.experiment)?.id }]),
    ];

    it('interceptModelCall: each case its variant, and no record of a draft or stopped experiment', async () => {
      const client = await vectorClient(fake, false);
      try {
        for (const c of vectors.cases) {
          let given: string | null | undefined;
          await client.interceptModelCall(
            c.experiment,
            c.user_id,
            async (variant) => {
              given = variant;
            },
            attributesOf(c),
          );
          await client.flush();
          expect({ name: c.name, given, sent: received() }).toEqual({
            name: c.name,
            given: c.variant,
            sent: expectedOfCall(c),
          });
        }
      } finally {
        await client.close();
      }
    });

    it('a wrapped client of a draft or stopped experiment answers and records no call', async () => {
      const client = await vectorClient(fake, false);
      try {
        const provider = new OpenAI({ apiKey: 'sk-test', baseURL: `${llm.url}/v1`, maxRetries: 0 });
        const wrapped = new Map<string, OpenAI>();
        // The first dozen cases of each experiment: held out, not targeted, not in the layer and
        // served users among them, at a fraction of the round trips of every case.
        const taken = new Map<string, number>();
        const sample = vectors.cases.filter((x) => {
          const n = taken.get(x.experiment) ?? 0;
          taken.set(x.experiment, n + 1);
          return n < 12 && statusOf(x.experiment) !== 'running';
        });
        expect(new Set(sample.map((x) => x.reason ?? 'served'))).toEqual(
          new Set([
            'draft',
            'unknown_experiment',
            'held_out',
            'not_targeted',
            'not_in_layer',
            'served',
          ]),
        );
        for (const c of sample) {
          const openai = wrapped.get(c.experiment) ?? client.wrap(provider, c.experiment);
          wrapped.set(c.experiment, openai);
          const answer = await client.withUser(
            c.user_id,
            () =>
              openai.chat.completions.create({
                model: 'gpt-test',
                messages: [{ role: 'user', content: 'Hi' }],
              }),
            attributesOf(c),
          );
          await client.flush();
          expect({ name: c.name, answered: answer.choices.length > 0, sent: received() }).toEqual({
            name: c.name,
            answered: true,
            sent: expectedExposures(c),
          });
        }
      } finally {
        await client.close();
      }
    });
  });
});
