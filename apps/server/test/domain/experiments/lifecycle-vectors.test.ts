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
  readFileSync(new URL('../../../../../testdata/lifecycle.json', import.meta.url), 'utf8'),
) as {
  config: Parameters<typeof eligibilityWorld>[0] & {
    experiments: Array<
      Omit<EligibleExperiment, 'bucketOf'> & { name: string; salt: string; bucket_count: number }
    >;
  };
  cases: Case[];
};

describe('testdata/lifecycle.json through the server’s evaluation', () => {
  const world = eligibilityWorld(file.config);
  const experiments = new Map(
    file.config.experiments.map((e) => [
      e.name,
      { ...e, bucketOf: createBucketer(e.salt, e.bucket_count) },
    ]),
  );

  it('gives every case its variant and reason: draft, running, stopped, archived', () => {
    const wrong = file.cases.flatMap((c): object[] => {
      const experiment = experiments.get(c.experiment);
      // An archived experiment is absent from the config: the route's unknown_experiment.
      const got =
        experiment === undefined
          ? { variant: null, reason: 'unknown_experiment' }
          : eligibility(experiment, c.user_id, c.attributes ?? {}, world);
      const expected =
        c.reason === undefined ? { variant: c.variant } : { variant: null, reason: c.reason };
      return JSON.stringify(got) === JSON.stringify(expected)
        ? []
        : [{ name: c.name, got, expected }];
    });
    expect(wrong).toEqual([]);
    const reasons = new Set(file.cases.map((c) => c.reason ?? 'served'));
    expect([...reasons].sort()).toEqual(
      [
        'draft',
        'held_out',
        'not_enrolled',
        'not_in_layer',
        'not_targeted',
        'served',
        'unknown_experiment',
      ].sort(),
    );
  });

  it('serves a stopped experiment’s variant to users its ranges leave out', () => {
    const shipped = experiments.get('shipped');
    if (shipped === undefined) throw new Error('no shipped experiment');
    const outside = file.cases.filter(
      (c) => c.experiment === 'shipped' && c.variant !== null && shipped.bucketOf(c.user_id) >= 80,
    );
    expect(outside.length).toBeGreaterThan(0);
    expect(new Set(outside.map((c) => c.variant))).toEqual(new Set(['treatment']));
  });
});
