import { readFileSync } from 'node:fs';
import { createBucketer } from '@arbiter/bucketing';
import { describe, expect, it } from 'vitest';
import {
  type EligibleExperiment,
  eligibility,
  eligibilityWorld,
} from '../../../src/domain/experiments/eligibility.ts';

interface Case {
  name: string;
  experiment: string;
  user_id: string;
  attributes?: Record<string, unknown>;
  variant: string | null;
  reason?: string;
}
const file = JSON.parse(
  readFileSync(new URL('../../../../../testdata/eligibility.json', import.meta.url), 'utf8'),
) as {
  config: Parameters<typeof eligibilityWorld>[0] & {
    experiments: Array<
      Omit<EligibleExperiment, 'bucketOf'> & { name: string; salt: string; bucket_count: number }
    >;
  };
  cases: Case[];
};

describe('testdata/eligibility.json through the server’s evaluation', () => {
  const world = eligibilityWorld(file.config);
  const experiments = new Map(
    file.config.experiments.map((e) => [
      e.name,
      { ...e, bucketOf: createBucketer(e.salt, e.bucket_count) },
    ]),
  );

  it('gives every case its variant and reason, in the order holdouts, layer, targeting, bucket', () => {
    const wrong = file.cases.flatMap((c): object[] => {
      const experiment = experiments.get(c.experiment);
      if (experiment === undefined) return [{ name: c.name, missing: c.experiment }];
      const got = eligibility(experiment, c.user_id, c.attributes ?? {}, world);
      const expected =
        c.reason === undefined ? { variant: c.variant } : { variant: null, reason: c.reason };
      return JSON.stringify(got) === JSON.stringify(expected)
        ? []
        : [{ name: c.name, got, expected }];
    });
    expect(wrong).toEqual([]);
    // every branch of the order is exercised by the file
    const reasons = new Set(file.cases.map((c) => c.reason ?? 'enrolled'));
    expect([...reasons].sort()).toEqual(
      ['enrolled', 'held_out', 'not_enrolled', 'not_in_layer', 'not_targeted'].sort(),
    );
  });
});
