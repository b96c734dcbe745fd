import { describe, expect, it } from 'vitest';
import { type CompiledExperiment, ConfigStore } from '../src/internal/config-store.ts';
import { PendingExposures } from '../src/internal/exposure-dedup.ts';
import type { ExposureTarget } from '../src/internal/holdouts-and-layers.ts';
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

  it('reads an entry without status as running, and leaves out a state it cannot serve', () => {
    const store = new ConfigStore();
    const stopped = (name: string, extra: object) =>
      ({ ...twoArms({ id: name, name }), status: 'stopped', ...extra }) as ReturnType<
        typeof twoArms
      >;
    const result = store.replace(
      configOf(
        1,
        twoArms(),
        { ...twoArms({ id: 'p', name: 'paused' }), status: 'paused' as 'draft' },
        { ...twoArms({ id: 'a', name: 'archived' }), status: 'archived' as 'draft' },
        stopped('no-served', {}),
        stopped('served-unknown', { served_variant: 'verbose' }),
        stopped('shipped', { served_variant: 'concise' }),
        { ...twoArms({ id: 'd', name: 'drafted' }), status: 'draft' },
      ),
      null,
    );
    expect(result.skipped).toEqual(['paused', 'archived', 'no-served', 'served-unknown']);
    expect(store.lookup('checkout-prompt')?.status).toBe('running');
    expect(store.lookup('shipped')).toMatchObject({ status: 'stopped', served: 'concise' });
    expect(store.lookup('drafted')).toMatchObject({ status: 'draft', served: null });
  });

  it("serves a stopped experiment's variant whatever the bucket, and a draft nothing", () => {
    const store = new ConfigStore();
    store.replace(
      configOf(
        1,
        {
          ...twoArms({ id: 's', name: 'shipped', split: 0 }),
          status: 'stopped',
          served_variant: 'control',
        },
        { ...twoArms({ id: 'd', name: 'drafted' }), status: 'draft' },
      ),
      null,
    );
    const shipped = store.lookup('shipped') as CompiledExperiment;
    const drafted = store.lookup('drafted') as CompiledExperiment;
    const pending = new PendingExposures<ExposureTarget>(() => {});
    for (let i = 0; i < 1_000; i++) {
      // every bucket is concise's: the stop serves control to all the same
      expect(store.variantOf(shipped, `user-${i}`)).toBe('control');
      expect(store.exposedVariantOf(shipped, `user-${i}`, undefined, pending)).toBe('control');
      expect(store.variantOf(drafted, `user-${i}`)).toBeNull();
      expect(store.exposedVariantOf(drafted, `user-${i}`, undefined, pending)).toBeNull();
    }
    expect(pending.count).toBe(0);
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

  describe('holdouts and layers', () => {
    const HOLDOUT = {
      id: 'h-1',
      name: 'everyone-out',
      salt: 'h-salt',
      bucket_count: 10,
      ranges: [{ start: 0, end: 10 }],
    };
    const LAYER = { name: 'chat', salt: 'l-salt', bucket_count: 10 };
    const withGates = (version: number, ...experiments: ReturnType<typeof twoArms>[]) => ({
      ...configOf(version, ...experiments),
      layers: [LAYER],
      holdouts: [HOLDOUT, { ...HOLDOUT, id: 'h-none', ranges: [] }],
    });

    it('gives an experiment with neither no gate, and resolves the others once per config', () => {
      const store = new ConfigStore();
      store.replace(
        withGates(
          1,
          twoArms(),
          twoArms({ id: 'u', name: 'unknown-holdout-only', holdouts: ['h-gone'] }),
          twoArms({
            id: 'g',
            name: 'gated',
            holdouts: ['h-none', 'h-gone'],
            layer: 'chat',
            layer_ranges: [],
          }),
        ),
        null,
      );
      expect(store.lookup('checkout-prompt')?.gate).toBeNull();
      // an id the config does not carry is skipped when the config is read
      expect(store.lookup('unknown-holdout-only')?.gate).toBeNull();
      const gate = store.lookup('gated')?.gate;
      expect(gate?.holdouts.map((h) => h.id)).toEqual(['h-none']);
      expect(typeof gate?.inLayer).toBe('function');
    });

    it('reads null layer and holdouts as absent, and lets no one into a layer it does not know', () => {
      const store = new ConfigStore();
      const absent = { ...twoArms({ id: 'n', name: 'nulls' }), layer: null, holdouts: null };
      const lost = twoArms({
        id: 'l',
        name: 'lost',
        layer: 'gone',
        layer_ranges: [{ start: 0, end: 10 }],
      });
      expect(store.replace(withGates(1, absent as never, lost), null).skipped).toEqual([]);
      const nulls = store.lookup('nulls');
      const gone = store.lookup('lost');
      if (nulls === undefined || gone === undefined) throw new Error('config not compiled');
      expect(nulls.gate).toBeNull();
      for (let i = 0; i < 100; i++) {
        expect(store.variantOf(nulls, `user-${i}`)).not.toBeNull();
        expect(store.variantOf(gone, `user-${i}`)).toBeNull();
      }
    });

    it('leaves out an experiment whose layer or holdout it cannot read, and keeps the others', () => {
      const store = new ConfigStore();
      const doc = {
        ...configOf(
          1,
          twoArms(),
          twoArms({ id: 'a', name: 'bad-holdout', holdouts: ['h-bad'] }),
          twoArms({
            id: 'b',
            name: 'bad-layer',
            layer: 'bad',
            layer_ranges: [{ start: 0, end: 5 }],
          }),
          twoArms({
            id: 'c',
            name: 'bad-ranges',
            layer: 'chat',
            layer_ranges: [{ start: '0', end: 5 }] as never,
          }),
          { ...twoArms({ id: 'd', name: 'bad-ids' }), holdouts: [7] as never },
        ),
        layers: [LAYER, { name: 'bad', salt: 'x', bucket_count: 0 }],
        holdouts: [{ ...HOLDOUT, id: 'h-bad', ranges: 'all' }],
      };
      expect(store.replace(doc, null)).toEqual({
        fatal: null,
        skipped: ['bad-holdout', 'bad-layer', 'bad-ranges', 'bad-ids'],
      });
      expect(store.lookup('checkout-prompt')).toBeDefined();
    });

    it("keeps who was sent a holdout's exposure across a refresh", () => {
      const store = new ConfigStore();
      const sent: string[] = [];
      const pending = new PendingExposures<ExposureTarget>(() => {});
      const check = () =>
        pending.drain(7, (target, user, variant) => sent.push(`${target.id}:${user}:${variant}`));
      const held = twoArms({ holdouts: ['h-1'] });
      store.replace(withGates(1, held), null);
      const first = store.lookup('checkout-prompt');
      expect(first && store.exposedVariantOf(first, 'user-1', undefined, pending)).toBeNull();
      check();
      store.replace(withGates(2, held), null);
      const second = store.lookup('checkout-prompt');
      expect(second).not.toBe(first);
      expect(second?.gate?.holdouts[0]?.exposures).toBe(first?.gate?.holdouts[0]?.exposures);
      expect(second && store.exposedVariantOf(second, 'user-1', undefined, pending)).toBeNull();
      check();
      expect(sent).toEqual(['h-1:user-1:holdout']);
    });
  });
});
