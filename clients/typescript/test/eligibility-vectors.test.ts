import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm } from './support/fake-llm.ts';
import { readTestdata } from './support/testdata.ts';
import {
  ATTRIBUTE_FORMS,
  expectEveryCase,
  expectedExposures,
  servedVectors,
  type VectorCase,
  type Vectors,
  vectorClient,
} from './support/vectors.ts';

// The one shared copy of the vectors, read in place as bucketing.json is.
const vectors = readTestdata('eligibility.json') as Vectors;
const idOf = new Map(vectors.config.experiments.map((e) => [e.name, e.id]));
const holdoutIds = new Set((vectors.config.holdouts ?? []).map((h) => h.id));

describe('testdata/eligibility.json: the cases reach every branch', () => {
  it('has enrolled users and users null for each reason, and both holdout exposures', () => {
    const reasons = new Set(vectors.cases.map((c) => c.reason ?? 'enrolled'));
    expect([...reasons].sort()).toEqual(
      ['enrolled', 'held_out', 'not_enrolled', 'not_in_layer', 'not_targeted'].sort(),
    );
    const holdoutVariants = new Set(
      vectors.cases.flatMap((c) =>
        c.exposures.filter((e) => holdoutIds.has(e.experiment_id)).map((e) => e.variant),
      ),
    );
    expect([...holdoutVariants].sort()).toEqual(['general', 'holdout']);
    const targeted = vectors.cases.filter((c) => c.experiment === 'pro-english');
    expect(targeted.some((c) => c.variant !== null)).toBe(true);
    expect(targeted.some((c) => c.variant === null)).toBe(true);
  });
});

describe.each(ATTRIBUTE_FORMS)('with %s', (_form, attributesOf) => {
  describe('testdata/eligibility.json through assign, getPrompt and getVariables', () => {
    const served = servedVectors(vectors);

    it('gives each case its variant and sends exactly its exposures, in order, once', async () => {
      await expectEveryCase(vectors, served, attributesOf);
    });

    it('sends nothing again for the same users the same day, holdout exposures included', async () => {
      for (const c of vectors.cases) {
        expect({
          name: c.name,
          variant: served.client.assign(c.experiment, c.user_id, attributesOf(c)),
        }).toEqual({ name: c.name, variant: c.variant });
      }
      await served.client.flush();
      expect(served.received()).toEqual([]);
    });

    it('addresses an experiment by id as by name', () => {
      for (const c of vectors.cases.filter((x) => x.experiment.startsWith('held-'))) {
        expect({
          name: c.name,
          variant: served.client.assign(idOf.get(c.experiment) ?? '', c.user_id, attributesOf(c)),
        }).toEqual({
          name: c.name,
          variant: c.variant,
        });
      }
    });

    it('gives interceptModelCall the variant the attributes it is given admit', async () => {
      const c = vectors.cases.find((x) => x.experiment === 'pro-english' && x.variant !== null);
      if (c === undefined) throw new Error('no enrolled pro-english case');
      const seen: Array<string | null> = [];
      const fn = async (variant: string | null) => {
        seen.push(variant);
      };
      await served.client.interceptModelCall(c.experiment, c.user_id, fn, attributesOf(c));
      // without attributes the targeting reads {}: no plan, so not targeted
      await served.client.interceptModelCall(c.experiment, c.user_id, fn);
      expect(seen).toEqual([c.variant, null]);
    });
  });

  describe('testdata/eligibility.json through model calls (holdouts and layers)', () => {
    const served = servedVectors(vectors, false);
    let llm: Awaited<ReturnType<typeof startFakeLlm>>;
    const gated = vectors.cases.filter(
      (c) => c.experiment === 'held-global' || c.experiment === 'held-both-layered-targeted',
    );

    beforeAll(async () => {
      llm = await startFakeLlm();
    });
    afterAll(() => llm.close());

    /** A model call sends the case's exposures (the experiment's from the call), then its own record. */
    const expectedOfCall = (c: VectorCase) => [
      ...expectedExposures(c),
      ...(c.variant === null
        ? []
        : [{ type: 'model_call', user_id: c.user_id, experiment_id: idOf.get(c.experiment) }]),
    ];

    it('interceptModelCall: each case its variant, its holdout exposures, and a record only when enrolled', async () => {
      for (const c of gated) {
        let given: string | null | undefined;
        await served.client.interceptModelCall(
          c.experiment,
          c.user_id,
          async (variant) => {
            given = variant;
          },
          attributesOf(c),
        );
        await served.client.flush();
        expect({ name: c.name, given, sent: served.received() }).toEqual({
          name: c.name,
          given: c.variant,
          sent: expectedOfCall(c),
        });
      }
    });

    it('a wrapped client inside withUser: the holdout decides before the layer and targeting', async () => {
      // A client of its own, so that no exposure of these users was sent today.
      const own = await vectorClient(served.fake, false);
      try {
        const openai = own.wrap(
          new OpenAI({ apiKey: 'sk-test', baseURL: `${llm.url}/v1`, maxRetries: 0 }),
          'held-both-layered-targeted',
        );
        for (const reason of ['held_out', 'not_in_layer', 'not_targeted', undefined]) {
          const c = gated.find(
            (x) => x.experiment === 'held-both-layered-targeted' && x.reason === reason,
          );
          if (c === undefined) throw new Error(`no case with reason ${String(reason)}`);
          const answer = await own.withUser(
            c.user_id,
            () =>
              openai.chat.completions.create({
                model: 'gpt-test',
                messages: [{ role: 'user', content: 'Hi' }],
              }),
            attributesOf(c),
          );
          await own.flush();
          expect({
            name: c.name,
            answered: answer.choices.length > 0,
            sent: served.received(),
          }).toEqual({
            name: c.name,
            answered: true,
            sent: expectedOfCall(c),
          });
        }
      } finally {
        await own.close();
      }
    });
  });
});
