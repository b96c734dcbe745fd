import { describe, expect, it } from 'vitest';
import { configOf, diffConfig } from '../../src/pages/versions/diff-config.ts';

describe('the version diff', () => {
  it('is empty for equal configs', () => {
    expect(diffConfig({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toEqual([]);
  });

  it('names each changed leaf by its dotted path, arrays by index, added and removed keys too', () => {
    const before = { name: 'x', allocation: [{ weight: 50 }, { weight: 50 }], old: true };
    const after = { name: 'x', allocation: [{ weight: 60 }, { weight: 40 }], added: 1 };
    expect(diffConfig(before, after)).toEqual([
      { path: 'allocation.0.weight', from: 50, to: 60 },
      { path: 'allocation.1.weight', from: 50, to: 40 },
      { path: 'old', from: true, to: undefined },
      { path: 'added', from: undefined, to: 1 },
    ]);
  });

  it('reports a whole value when one side is not an object', () => {
    expect(diffConfig(1, { a: 1 })).toEqual([{ path: '(root)', from: 1, to: { a: 1 } }]);
    expect(diffConfig({ p: 'a' }, { p: null })).toEqual([{ path: 'p', from: 'a', to: null }]);
  });

  it('compares only configuration, never the server bookkeeping of a version', () => {
    const version = {
      id: 'e1',
      version: 3,
      created_at: 't1',
      updated_at: 't2',
      name: 'x',
      salt: 's',
    };
    expect(configOf(version)).toEqual({ name: 'x', salt: 's' });
  });
});
