import { describe, expect, it } from 'vitest';
import {
  type EvaluatedConfig,
  readVectorFile,
  serverEvaluation,
  wrongAnswers,
} from '../../support/vector-cases.ts';

const file = readVectorFile<EvaluatedConfig>('eligibility');

describe('testdata/eligibility.json through the server’s evaluation', () => {
  const { answer } = serverEvaluation(file.config);

  it('gives every case its variant and reason, in the order holdouts, layer, targeting, bucket', async () => {
    const wrong = await wrongAnswers(file.cases, (c) => answer(c) ?? { missing: c.experiment });
    expect(wrong).toEqual([]);
    // every branch of the order is exercised by the file
    const reasons = new Set(file.cases.map((c) => c.reason ?? 'enrolled'));
    expect([...reasons].sort()).toEqual(
      ['enrolled', 'held_out', 'not_enrolled', 'not_in_layer', 'not_targeted'].sort(),
    );
  });
});
