import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { wireLimitsText } from '../src/wire-limits-document.ts';

const FILE = new URL('../../../testdata/wire-limits.json', import.meta.url);

describe('testdata/wire-limits.json', () => {
  it('is what the contract package generates (run `npm run write-wire-limits -w @arbiter/contract` after a change)', () => {
    expect(readFileSync(FILE, 'utf8')).toBe(wireLimitsText());
  });
});
