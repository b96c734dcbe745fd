import { describe, expect, it } from 'vitest';
import { readTestdata } from './support/testdata.ts';
import {
  ATTRIBUTE_FORMS,
  expectEveryCase,
  expectedExposures,
  servedVectors,
  type VectorCase,
  type Vectors,
} from './support/vectors.ts';

// The one shared copy of the coverage vectors, read in place with eligibility.json's runner.
const vectors = readTestdata('coverage.json') as Vectors;
const casesOf = (name: string) => vectors.cases.filter((c) => c.experiment === name);

describe('testdata/coverage.json: the cases reach every step', () => {
  it('has users covered and not, past holdouts and targeting, in every state', () => {
    const reasons = new Set(vectors.cases.map((c) => c.reason));
    for (const reason of [
      undefined,
      'not_covered',
      'not_enrolled',
      'held_out',
      'not_targeted',
      'draft',
    ]) {
      expect(reasons.has(reason), String(reason)).toBe(true);
    }
  });

  it('every user the ramp admits at 10 % has the same variant at 50 % and 100 %', () => {
    const [ten, fifty, full] = ['ramp-10', 'ramp-50', 'ramp-100'].map(casesOf) as [
      VectorCase[],
      VectorCase[],
      VectorCase[],
    ];
    const admitted = ten.flatMap((c, i) => (c.reason === 'not_covered' ? [] : [i]));
    expect(admitted.length).toBeGreaterThan(0);
    for (const i of admitted) {
      expect([fifty[i]?.variant, full[i]?.variant]).toEqual([ten[i]?.variant, ten[i]?.variant]);
    }
  });
});

describe.each(ATTRIBUTE_FORMS)('with %s', (_form, attributesOf) => {
  describe('testdata/coverage.json through assign, getPrompt and getVariables', () => {
    const served = servedVectors(vectors);

    it('gives each case its variant, its prompt and variables, and exactly its exposures', async () => {
      await expectEveryCase(vectors, served, attributesOf);
    });
  });

  describe('testdata/coverage.json through interceptModelCall', () => {
    const served = servedVectors(vectors, false);

    it('gives each case its variant and records a call only for an admitted running user', async () => {
      const { client, received } = served;
      const idOf = (name: string) => vectors.config.experiments.find((e) => e.name === name);
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
        const entry = idOf(c.experiment);
        const recorded =
          c.variant !== null && (entry?.status ?? 'running') === 'running'
            ? [{ type: 'model_call', user_id: c.user_id, experiment_id: entry?.id }]
            : [];
        expect({ name: c.name, given, sent: received() }).toEqual({
          name: c.name,
          given: c.variant,
          sent: [...expectedExposures(c), ...recorded],
        });
      }
    });
  });
});
