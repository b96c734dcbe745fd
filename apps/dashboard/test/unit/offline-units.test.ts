import { describe, expect, it } from 'vitest';
import { uploadFormat } from '../../src/pages/datasets/upload-format.ts';
import { differenceValue, meanValue, share } from '../../src/pages/offline/scorer-units.ts';

describe("an offline scorer's units", () => {
  it('0/1 scorers and error_rate are shares: means in %, differences in points', () => {
    expect(meanValue('exact_match', 2 / 3)).toBe('66.7%');
    expect(differenceValue('contains', -0.375)).toBe('\u221237.5 pts');
    expect(differenceValue('error_rate', 0.0208333)).toBe('+2.08 pts');
  });

  it('measured scorers keep their units; levenshtein and custom are plain numbers', () => {
    expect(meanValue('latency_ms', 812.5)).toBe('813 ms');
    expect(differenceValue('cost', -0.002)).toBe('\u2212$0.002');
    expect(meanValue('total_tokens', 120)).toBe('120 tokens');
    expect(differenceValue('levenshtein', 0.258)).toBe('+0.258');
    expect(meanValue('custom', null)).toBe('—');
  });

  it('share: a percentage with one decimal, a dash for none', () => {
    expect(share(2 / 23)).toBe('8.7%');
    expect(share(null)).toBe('—');
  });
});

describe('the upload format of a file', () => {
  it('comes from its extension, in any case; other names are refused', () => {
    expect(uploadFormat('items.CSV')?.contentType).toBe('text/csv');
    expect(uploadFormat('items.jsonl')?.contentType).toBe('application/x-ndjson');
    expect(uploadFormat('a.b.ndjson')?.contentType).toBe('application/x-ndjson');
    expect(uploadFormat('items.json')?.contentType).toBe('application/json');
    expect(uploadFormat('items.txt')).toBeNull();
    expect(uploadFormat('README')).toBeNull();
  });
});
