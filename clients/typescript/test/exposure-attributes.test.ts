import { afterEach, describe, expect, it } from 'vitest';
import type { Arbiter } from '../src/index.ts';
import type { ConfigDoc, FakeArbiter } from './support/fake-arbiter.ts';
import { type QuietClient, startQuietClient } from './support/quiet-client.ts';
import { readTestdata } from './support/testdata.ts';

interface AttributesCase {
  name: string;
  user_id: string;
  attributes?: Record<string, unknown>;
  fill?: { key: string; text: string; count: number };
  sent: boolean;
}

interface EligibilityCase {
  name: string;
  experiment: string;
  user_id: string;
  attributes?: Record<string, unknown>;
  variant: string | null;
  exposures: Array<{ experiment_id: string; variant: string }>;
}

const shared = readTestdata('exposure-attributes.json') as {
  experiment: string;
  config: ConfigDoc;
  cases: AttributesCase[];
};
const eligibility = readTestdata('eligibility.json') as {
  config: ConfigDoc;
  cases: EligibilityCase[];
};

/** The case's attributes with its fill applied (a fresh object). */
function attributesOf(c: AttributesCase): Record<string, unknown> | undefined {
  if (c.attributes === undefined) return undefined;
  const out = structuredClone(c.attributes);
  if (c.fill !== undefined) out[c.fill.key] = c.fill.text.repeat(c.fill.count);
  return out;
}

let fake: FakeArbiter | undefined;
let client: Arbiter | undefined;
afterEach(async () => {
  await client?.close();
  await fake?.close();
  client = undefined;
  fake = undefined;
});

async function start(
  config: ConfigDoc,
  options: { exposureAttributes?: boolean } = {},
): Promise<QuietClient> {
  const started = await startQuietClient(config, options);
  ({ fake, client } = started);
  return started;
}

/** Every stored event, in the order it was delivered. */
const sent = (f: FakeArbiter) =>
  f.deliveries.flat().map((id) => f.events.get(id) as unknown as Record<string, unknown>);

describe('testdata/exposure-attributes.json', () => {
  it('off by default: every exposure is sent and none carries metadata', async () => {
    const { client, fake } = await start(shared.config);
    for (const c of shared.cases) client.assign(shared.experiment, c.user_id, attributesOf(c));
    await client.flush();
    const events = sent(fake);
    expect(events.map((e) => e.user_id)).toEqual(shared.cases.map((c) => c.user_id));
    for (const e of events) expect(e.metadata, String(e.user_id)).toBeUndefined();
  });

  it('on: each exposure carries exactly the attributes passed, or none past the limit', async () => {
    const { client, fake, logger } = await start(shared.config, { exposureAttributes: true });
    for (const c of shared.cases) {
      expect(client.assign(shared.experiment, c.user_id, attributesOf(c)), c.name).toBe(
        'treatment',
      );
    }
    await client.flush();
    const events = sent(fake);
    expect(events.map((e) => e.user_id)).toEqual(shared.cases.map((c) => c.user_id));
    shared.cases.forEach((c, i) => {
      const event = events[i] as Record<string, unknown>;
      expect({ name: c.name, metadata: event.metadata }).toEqual({
        name: c.name,
        metadata: c.sent ? { attributes: attributesOf(c) } : undefined,
      });
    });
    // One warning for the dropped ones, whatever their number.
    expect(logger.lines.filter((l) => l.includes('without its attributes'))).toHaveLength(1);
  });
});

describe('testdata/eligibility.json with exposureAttributes on', () => {
  it('sends the same exposures, each with its call attributes; nothing for the not targeted', async () => {
    const { client, fake } = await start(eligibility.config, { exposureAttributes: true });
    let seen = 0;
    for (const c of eligibility.cases) {
      expect(client.assign(c.experiment, c.user_id, c.attributes), c.name).toBe(c.variant);
      await client.flush();
      const fresh = sent(fake).slice(seen);
      seen += fresh.length;
      expect({
        name: c.name,
        sent: fresh.map(({ experiment_id, variant, metadata }) => ({
          experiment_id,
          variant,
          metadata,
        })),
      }).toEqual({
        name: c.name,
        sent: c.exposures.map((e) => ({
          ...e,
          metadata: c.attributes === undefined ? undefined : { attributes: c.attributes },
        })),
      });
    }
  });
});

describe('exposureAttributes: what the caller passes', () => {
  const open = (name: string) => ({
    config_version: 1,
    bucketing_version: '1',
    experiments: [
      {
        id: '00000000-0000-4000-8000-0000000000e2',
        name,
        version: 1,
        salt: `salt-${name}`,
        bucket_count: 100,
        ranges: [{ variant: 'treatment', start: 0, end: 100 }],
        variants: [{ key: 'treatment' }],
      },
    ],
  });

  it('drops attributes that are not JSON without throwing, and still sends the exposure', async () => {
    const { client, fake, logger } = await start(open('x') as ConfigDoc, {
      exposureAttributes: true,
    });
    const cycle: Record<string, unknown> = { plan: 'pro' };
    cycle.self = cycle;
    const bad: Array<Record<string, unknown>> = [
      { big: 10n },
      cycle,
      { nan: Number.NaN },
      { inf: Number.POSITIVE_INFINITY },
      { fn: () => 1 },
      {
        get boom() {
          throw new Error('getter');
        },
      },
    ];
    bad.forEach((attributes, i) => {
      expect(() => client.assign('x', `u-${i}`, attributes)).not.toThrow();
    });
    await client.flush();
    const events = sent(fake);
    expect(events.map((e) => e.user_id)).toEqual(bad.map((_, i) => `u-${i}`));
    for (const e of events) expect(e.metadata).toBeUndefined();
    expect(logger.lines.filter((l) => l.includes('without its attributes'))).toHaveLength(1);
  });

  it('copies the attributes: a change after the call does not reach the event', async () => {
    const { client, fake } = await start(open('x') as ConfigDoc, { exposureAttributes: true });
    const attributes = { plan: 'pro', when: new Date(0), gone: undefined };
    client.assign('x', 'u', attributes);
    await client.flush();
    attributes.plan = 'free';
    expect(sent(fake)[0]?.metadata).toEqual({
      attributes: { plan: 'pro', when: '1970-01-01T00:00:00.000Z' },
    });
  });

  it('de-duplicates as before: the first call of the day sends its attributes, later ones nothing', async () => {
    const { client, fake } = await start(open('x') as ConfigDoc, { exposureAttributes: true });
    client.assign('x', 'u', { plan: 'pro' });
    client.getPrompt('x', 'u', 'default', { plan: 'team' });
    client.getVariables('x', 'u', {}, { plan: 'free' });
    await client.flush();
    expect(sent(fake).map((e) => e.metadata)).toEqual([{ attributes: { plan: 'pro' } }]);
  });

  it('a model call: its exposure carries the attributes, its model_call never does', async () => {
    const { client, fake } = await start(open('x') as ConfigDoc, { exposureAttributes: true });
    await client.interceptModelCall('x', 'u', async () => ({ model: 'm' }), { plan: 'pro' });
    await client.interceptModelCall('x', 'w', async () => 'ok');
    await client.flush();
    const events = sent(fake).map(({ type, user_id, metadata }) => ({ type, user_id, metadata }));
    expect(events).toEqual([
      { type: 'exposure', user_id: 'u', metadata: { attributes: { plan: 'pro' } } },
      { type: 'model_call', user_id: 'u', metadata: undefined },
      { type: 'exposure', user_id: 'w', metadata: undefined },
      { type: 'model_call', user_id: 'w', metadata: undefined },
    ]);
  });

  it('off: a model call exposure carries no attributes either', async () => {
    const { client, fake } = await start(open('x') as ConfigDoc);
    await client.interceptModelCall('x', 'u', async () => 'ok', { plan: 'pro' });
    await client.flush();
    expect(sent(fake).map((e) => e.metadata)).toEqual([undefined, undefined]);
  });
});
