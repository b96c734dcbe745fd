import { describe, expect, it } from 'vitest';
import { type Attributes, PreparedAttributes } from '../src/index.ts';
import { ConfigStore } from '../src/internal/config-store.ts';
import type { AnyAttributes } from '../src/internal/user-context.ts';
import { configOf, twoArms } from './support/fixtures.ts';
import { startQuietClient } from './support/quiet-client.ts';
import { readTestdata } from './support/testdata.ts';

type ConditionCase = [string, unknown, unknown, boolean, Record<string, unknown>?];

/** A store whose one experiment has `targeting` and lets every targeted user in (bucket 0..1). */
function storeWith(version: number, targeting: unknown, groups?: Record<string, unknown>) {
  const store = new ConfigStore();
  const doc = configOf(version, { ...twoArms({ bucket_count: 1, split: 1 }), targeting });
  store.replace(groups === undefined ? doc : { ...doc, saved_groups: groups }, null);
  const entry = store.lookup('checkout-prompt');
  if (entry === undefined) throw new Error('the experiment was not compiled');
  return (attributes?: AnyAttributes) => store.variantOf(entry, 'user-1', attributes) !== null;
}

describe.each(['conditions.json', 'growthbook/eval-condition.json'])(
  'testdata/%s as targeting',
  (file) => {
    const all = (readTestdata(file) as { evalCondition: ConditionCase[] }).evalCondition;

    it.each(all.map((c, i) => [i, ...c] as const))(
      '#%i %s: prepared answers as plain, and as expected',
      (_i, _name, condition, attributes, expected, groups) => {
        const targeted = storeWith(1, condition, groups);
        const prepared = new PreparedAttributes(attributes as Attributes);
        const plain = targeted(attributes as Attributes);
        // Twice: the first call resolves the fields, the second reads the cached values.
        expect([plain, targeted(prepared), targeted(prepared)]).toEqual([
          expected,
          expected,
          expected,
        ]);
      },
    );
  },
);

describe('PreparedAttributes', () => {
  it('reused across a config update with other fields answers as the plain object', () => {
    const attributes = { plan: 'pro', country: 'FR', app: { version: '2.5.0' } };
    const prepared = new PreparedAttributes(attributes);
    const store = new ConfigStore();
    const variant = () => {
      const entry = store.lookup('checkout-prompt');
      if (entry === undefined) throw new Error('no experiment');
      return [
        store.variantOf(entry, 'user-1', attributes),
        store.variantOf(entry, 'user-1', prepared),
      ];
    };
    const arms = twoArms({ bucket_count: 1, split: 1 });
    store.replace(configOf(1, { ...arms, targeting: { plan: 'pro' } }), null);
    expect(variant()).toEqual(['control', 'control']);
    store.replace(configOf(2, { ...arms, targeting: { country: 'DE', plan: 'pro' } }), null);
    expect(variant()).toEqual([null, null]);
    store.replace(configOf(3, { ...arms, targeting: { 'app.version': { $vgte: '2.4' } } }), null);
    expect(variant()).toEqual(['control', 'control']);
  });

  it('copies the top level: later changes to the caller object are not seen', () => {
    const targeted = storeWith(1, { plan: 'pro' });
    const attributes: Attributes = { plan: 'pro' };
    const prepared = new PreparedAttributes(attributes);
    attributes.plan = 'free';
    expect([targeted(attributes), targeted(prepared)]).toEqual([false, true]);
    // Before its first use too: nothing is read until then, but the copy is taken at once.
    const later = new PreparedAttributes(attributes);
    attributes.plan = 'pro';
    expect(targeted(later)).toBe(false);
  });

  it('never throws on a bad value, and answers as that value passed plain', () => {
    const throwing = {
      get plan(): string {
        throw new Error('getter');
      },
    };
    const bad: unknown[] = [null, undefined, 5, 'pro', ['pro'], throwing, new Map(), Symbol('x')];
    const open = storeWith(1, { plan: { $exists: false } });
    const closed = storeWith(2, { plan: 'pro' });
    for (const value of bad) {
      const prepared = new PreparedAttributes(value as Attributes);
      for (const targeted of [open, closed]) {
        expect(targeted(prepared), String(value)).toBe(targeted(value as Attributes));
      }
    }
  });

  it('is told from a plain object only by instanceof', () => {
    const lookalike = { source: { plan: 'pro' }, valuesFor: () => ['pro'] };
    const targeted = storeWith(1, { plan: 'pro' });
    expect(targeted(lookalike as unknown as Attributes)).toBe(false);
    expect(targeted(new PreparedAttributes({ plan: 'pro' }))).toBe(true);
  });
});

describe('PreparedAttributes in exposures (exposureAttributes: true)', () => {
  const shared = readTestdata('exposure-attributes.json') as {
    experiment: string;
    config: Parameters<typeof startQuietClient>[0];
    cases: Array<{ user_id: string; attributes?: Record<string, unknown> }>;
  };

  /** The metadata of every exposure sent, by user, for each case's attributes in `form`. */
  async function metadataSent(form: (a: Attributes | undefined) => unknown) {
    const { client, fake } = await startQuietClient(shared.config, { exposureAttributes: true });
    try {
      for (const c of shared.cases) {
        client.assign(shared.experiment, c.user_id, form(c.attributes) as Attributes);
      }
      await client.flush();
      return fake.deliveries.flat().map((id) => {
        const e = fake.events.get(id);
        return [e?.user_id, e?.metadata];
      });
    } finally {
      await client.close();
      await fake.close();
    }
  }

  it('carry the same metadata.attributes as the plain object', async () => {
    const plain = await metadataSent((a) => a);
    const prepared = await metadataSent((a) => new PreparedAttributes(a));
    expect(plain.some(([, metadata]) => metadata !== undefined)).toBe(true);
    expect(prepared).toEqual(plain);
  });
});
