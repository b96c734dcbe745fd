import { describe, expect, it } from 'vitest';
import {
  type EvaluatedConfig,
  readVectorFile,
  serverEvaluation,
  wrongAnswers,
} from '../../support/vector-cases.ts';

const file = readVectorFile<EvaluatedConfig>('lifecycle');

describe('testdata/lifecycle.json through the server’s evaluation', () => {
  const { experiments, answer } = serverEvaluation(file.config);

  it('gives every case its variant and reason: draft, running, stopped, archived', async () => {
    // An archived experiment is absent from the config: the route's unknown_experiment.
    const wrong = await wrongAnswers(
      file.cases,
      (c) => answer(c) ?? { variant: null, reason: 'unknown_experiment' },
    );
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
