/**
 * A result's fingerprint is stored and compared with later uploads of the same row: the
 * one-pass canonicalRow must write exactly canonical(row), byte for byte, for every row the
 * schema admits, or rows stored before it would read as conflicts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonical, canonicalRow } from '../../../src/domain/offline-runs/results.ts';

const json = fc.jsonValue();
const row = fc.record(
  {
    item_id: fc.string({ minLength: 1 }),
    variant: fc.string({ minLength: 1 }),
    repeat: fc.nat(),
    output: json,
    error: fc.option(fc.string()),
    latency_ms: fc.double({ noNaN: true, noDefaultInfinity: true }),
    input_tokens: fc.nat(),
    output_tokens: fc.nat(),
    cost: fc.double({ noNaN: true, noDefaultInfinity: true }),
    model: fc.string(),
    scores: fc.dictionary(fc.string(), fc.double({ noNaN: true, noDefaultInfinity: true })),
  },
  { requiredKeys: ['item_id', 'variant', 'repeat'] },
);

describe('a result’s fingerprint', () => {
  it('is canonical(row), whatever the row holds', () => {
    fc.assert(
      fc.property(row, (r) => {
        // as the server sees a row: parsed from JSON
        const parsed = JSON.parse(JSON.stringify(r));
        const output = parsed.output === undefined ? undefined : JSON.stringify(parsed.output);
        expect(canonicalRow(parsed, output)).toBe(canonical(parsed));
      }),
      { numRuns: 2000 },
    );
  });
});
