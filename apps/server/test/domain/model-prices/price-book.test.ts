import { describe, expect, it } from 'vitest';
import {
  BUILT_IN_ROWS,
  costOf,
  PriceBook,
  type PriceRow,
  patternMatches,
  ranked,
} from '../../../src/domain/model-prices/price-book.ts';

/** The price table's rules as data: which names a pattern prices, which row wins, the table's rows. */
describe('patternMatches', () => {
  it.each([
    ['gpt-4o', 'gpt-4o', true],
    ['gpt-4o', 'gpt-4o-2024-08-06', true],
    ['gpt-4o', 'openai/gpt-4o', true],
    ['gpt-4o', 'gpt-4o-mini', false],
    ['gpt-4o', 'gpt-4o-mini-2024-07-18', false],
    ['gpt-4o', 'gpt-4o-audio-preview', false],
    ['claude-3-5-sonnet', 'claude-3-5-sonnet-20241022', true],
    ['claude-3-5-sonnet', 'claude-3-5-sonnet-latest', true],
    ['claude-opus-4', 'claude-opus-4-1-20250805', false],
    ['claude-sonnet-4', 'claude-sonnet-4-5', false],
    ['mistral-large', 'mistral-large-2411', true],
    ['gemini-1.5-pro', 'models/gemini-1.5-pro-002', true],
    ['meta.llama3-3-70b-instruct', 'meta.llama3-3-70b-instruct-v1:0', true],
    ['llama-3.3-70b-instruct-turbo', 'meta-llama/llama-3.3-70b-instruct-turbo', true],
    ['a/b', 'x/b', false],
  ])('%s prices %s: %s', (pattern, name, expected) => {
    expect(patternMatches(pattern, name)).toBe(expected);
  });
});

const row = (pattern: string, effective_from: string, input: number): PriceRow => ({
  pattern,
  effective_from,
  currency: 'USD',
  input_per_million: input,
  output_per_million: 0,
  cached_input_per_million: null,
  reasoning_per_million: null,
  source: null,
});
const at = (day: string) => Date.parse(`${day}T12:00:00Z`);

describe('PriceBook', () => {
  const builtIn = [
    ranked('builtin', row('m', '2025-01-01', 1)),
    ranked('builtin', row('m', '2025-06-01', 2)),
    ranked('builtin', row('m-2025-05-05', '2025-05-05', 3)),
  ];

  it('takes the latest row in effect, the longest pattern first', () => {
    const book = new PriceBook([], builtIn);
    expect(book.rowFor('m', at('2024-12-31'))).toBeNull();
    expect(book.rowFor('M', at('2025-03-01'))?.input_per_million).toBe(1);
    expect(book.rowFor('m', at('2025-07-01'))?.input_per_million).toBe(2);
    expect(book.rowFor('m-2025-05-05', at('2025-07-01'))?.input_per_million).toBe(3);
    expect(book.rowFor('m-2025-05-05', at('2025-05-04'))?.input_per_million).toBe(1);
  });

  it('prefers the org’s row in effect, and falls back before its day', () => {
    const book = new PriceBook([ranked('org', row('m', '2025-07-01', 9))], builtIn);
    expect(book.rowFor('m-2025-05-05', at('2025-07-01'))?.ref).toBe('org:m@2025-07-01');
    expect(book.rowFor('m', at('2025-06-30'))?.ref).toBe('builtin:m@2025-06-01');
  });

  it('prices each kind of token at its own rate', () => {
    const r: PriceRow = {
      ...row('m', '2025-01-01', 2),
      output_per_million: 8,
      cached_input_per_million: 0.5,
      reasoning_per_million: 16,
    };
    const cost = costOf(r, {
      input_tokens: 1_000_000,
      cached_input_tokens: 400_000,
      output_tokens: 1_000_000,
      reasoning_tokens: 250_000,
    });
    expect(cost).toBeCloseTo(0.6 * 2 + 0.4 * 0.5 + 0.75 * 8 + 0.25 * 16, 12);
  });
});

describe('the built-in table', () => {
  it('has a source, USD and a valid day on every row, each key once', () => {
    const keys = new Set<string>();
    for (const r of BUILT_IN_ROWS) {
      expect(r.source, r.pattern).toMatch(/^https:\/\//);
      expect(r.currency).toBe('USD');
      expect(Number.isNaN(r.effectiveMs), r.effective_from).toBe(false);
      expect(r.pattern).toBe(r.pattern.toLowerCase());
      keys.add(r.ref);
    }
    expect(keys.size).toBe(BUILT_IN_ROWS.length);
  });

  it('prices each pattern’s own name by a row of that pattern', () => {
    const book = new PriceBook([]);
    const late = Date.parse('2030-01-01T00:00:00Z');
    for (const r of BUILT_IN_ROWS) expect(book.rowFor(r.pattern, late)?.pattern).toBe(r.pattern);
  });
});
