import { describe, expect, it } from 'vitest';
import { type CompiledExperiment, ConfigStore } from '../src/internal/config-store.ts';
import { PendingExposures } from '../src/internal/exposure-dedup.ts';
import { configOf, twoArms } from './support/fixtures.ts';

describe('ConfigStore', () => {
  it('addresses an experiment by name and by id, as one entry', () => {
    const store = new ConfigStore();
    store.replace(configOf(3, twoArms()), '"3"');
    const byName = store.lookup('checkout-prompt');
    expect(byName).toBeDefined();
    expect(store.lookup('0b6f1c9e-7c1a-4d3e-9a43-0c1a2b3c4d5e')).toBe(byName);
    expect(store.version).toBe(3);
    expect(store.etag).toBe('"3"');
  });

  it('searches ranges in start order even when the document lists them otherwise', () => {
    const store = new ConfigStore();
    const exp = twoArms({ bucket_count: 1 });
    exp.ranges = [
      { variant: 'b', start: 1, end: 1 },
      { variant: 'a', start: 0, end: 1 },
    ];
    store.replace(configOf(1, exp), null);
    const entry = store.lookup('checkout-prompt');
    expect(entry && store.variantOf(entry, 'anyone')).toBe('a');
  });

  it('answers null for a bucket in no range', () => {
    const store = new ConfigStore();
    store.replace(configOf(1, { ...twoArms(), ranges: [] }), null);
    const entry = store.lookup('checkout-prompt');
    expect(entry && store.variantOf(entry, 'user-1')).toBeNull();
  });

  it('keeps the last config when a document is unusable', () => {
    const store = new ConfigStore();
    store.replace(configOf(1, twoArms()), null);
    expect(store.replace({ nope: true }, null).fatal).toMatch(/experiments/);
    expect(
      store.replace({ ...configOf(2, twoArms()), bucketing_version: '2' }, null).fatal,
    ).toMatch(/bucketing version 2/);
    expect(store.version).toBe(1);
    expect(store.lookup('checkout-prompt')).toBeDefined();
  });

  it('leaves out a malformed experiment and keeps the others', () => {
    const store = new ConfigStore();
    const broken = { ...twoArms({ id: 'x', name: 'broken' }), bucket_count: 0 };
    const result = store.replace(configOf(1, twoArms(), broken), null);
    expect(result).toEqual({ fatal: null, skipped: ['broken'] });
    expect(store.lookup('broken')).toBeUndefined();
    expect(store.lookup('checkout-prompt')).toBeDefined();
  });

  it('keeps who was exposed across a refresh', () => {
    const store = new ConfigStore();
    const exposures: string[] = [];
    const pending = new PendingExposures<CompiledExperiment>(() => {});
    const check = () =>
      pending.drain(7, (_, user, variant) => exposures.push(`${user}:${variant}`));
    store.replace(configOf(1, twoArms()), null);
    const first = store.lookup('checkout-prompt');
    const variant = first && store.exposedVariantOf(first, 'user-1', undefined, pending);
    check();
    store.replace(configOf(2, twoArms()), null);
    const second = store.lookup('checkout-prompt');
    expect(second).not.toBe(first);
    expect(second && store.exposedVariantOf(second, 'user-1', undefined, pending)).toBe(variant);
    check();
    expect(exposures).toEqual([`user-1:${variant}`]);
  });

  it('gives exposedVariantOf the variant variantOf gives, and no exposure to a user left out', () => {
    const store = new ConfigStore();
    const exp = twoArms();
    store.replace(configOf(1, exp, { ...exp, id: 'none', name: 'none', ranges: [] }), null);
    const entry = store.lookup('checkout-prompt');
    const nobody = store.lookup('none');
    if (entry === undefined || nobody === undefined) throw new Error('config not compiled');
    const exposed: string[] = [];
    const pending = new PendingExposures<CompiledExperiment>(() =>
      pending.drain(1, (_, user) => exposed.push(user)),
    );
    for (let i = 0; i < 2_000; i++) {
      const user = i % 7 === 0 ? `ü-${i}-\u{1F600}` : `user-${i}`;
      expect(store.exposedVariantOf(entry, user, undefined, pending)).toBe(
        store.variantOf(entry, user),
      );
      expect(store.exposedVariantOf(nobody, user, undefined, pending)).toBe(null);
    }
    // 1,024 calls fill a batch, which is checked at once; the rest wait for the next check.
    expect(exposed).toHaveLength(1_024);
    pending.drain(1, (_, user) => exposed.push(user));
    expect(exposed).toHaveLength(2_000);
    expect(new Set(exposed).size).toBe(2_000);
  });
});
