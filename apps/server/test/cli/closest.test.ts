import { describe, expect, it } from 'vitest';
import { closest, editDistance } from '../../src/cli/closest.ts';

describe('the closest name to a slip', () => {
  it('counts a swap of neighbours as one edit', () => {
    expect(editDistance('dya', 'day')).toBe(1);
    expect(editDistance('', 'day')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('suggests a near name or a prefix, and nothing for a word far from all', () => {
    expect(closest('dya', ['day', 'json', 'help'])).toBe('day');
    expect(closest('serv', ['serve', 'migrate'])).toBe('serve');
    expect(closest('jsno', ['day', 'json'])).toBe('json');
    expect(closest('x', ['day', 'json', 'help'])).toBeNull();
    expect(closest('frobnicate', ['serve', 'migrate'])).toBeNull();
    expect(closest('day', [])).toBeNull();
  });
});
