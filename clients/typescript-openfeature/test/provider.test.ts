import { Arbiter } from '@arbiter/client';
import { OpenFeature, ProviderEvents } from '@openfeature/server-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArbiterProvider } from '../src/index.ts';
import { createExperiment, type Org, RealServer } from './support/server.ts';

// Each test runs through the real OpenFeature server SDK against the real server.
let server: RealServer;
let org: Org;
let experiment: { id: string };

/** Quiet clients that poll often enough for "the next poll" to come within a test. */
function client(overrides: Record<string, unknown> = {}): Arbiter {
  return new Arbiter({
    apiKey: org.publishable,
    baseUrl: server.url,
    pollIntervalMs: 200,
    flushIntervalMs: 3_600_000,
    logger: { warn() {}, error() {} },
    ...overrides,
  });
}

beforeAll(async () => {
  server = await new RealServer().start();
  org = await server.newOrg();
  experiment = await createExperiment(org, {
    name: 'checkout-copy',
    bucket_count: 10_000,
    allocation: [
      { variant: 'control', weight: 30 },
      { variant: 'concise', weight: 30 },
      { variant: 'formal', weight: 30 },
    ],
    variants: [
      { key: 'control', variables: { tone: 'plain', max_tokens: 200, bold: false } },
      { key: 'concise', variables: { tone: 'short', max_tokens: 80, bold: true } },
      {
        key: 'formal',
        variables: { tone: 'formal', max_tokens: 300, bold: false, style: { a: 1 } },
      },
    ],
  });
});

afterAll(async () => {
  await OpenFeature.close();
  await server?.dispose();
});

/** The first of `users` the experiment enrols. */
async function firstEnrolled(flags: ReturnType<typeof OpenFeature.getClient>): Promise<string> {
  for (const user of users) {
    const details = await flags.getStringDetails('checkout-copy', 'none', { targetingKey: user });
    if (details.reason === 'SPLIT') return user;
  }
  throw new Error('no user enrolled');
}

const users = Array.from({ length: 10_000 }, (_, i) => `of-user-${i}`);

describe('the server provider through @openfeature/server-sdk', () => {
  it('gives 10,000 users the variant the client assigns, with its variables and reason', async () => {
    const arbiter = client({ trackExposures: false });
    const reference = client({ trackExposures: false });
    await OpenFeature.setProviderAndWait('parity', new ArbiterProvider(arbiter));
    await reference.ready();
    const flags = OpenFeature.getClient('parity');
    const mismatches: string[] = [];
    const seen = new Set<string>();
    for (const user of users) {
      const want = reference.assign('checkout-copy', user);
      const details = await flags.getStringDetails('checkout-copy', 'none', { targetingKey: user });
      const got = details.reason === 'SPLIT' ? details.value : null;
      if (got !== want || details.variant !== (want ?? undefined)) mismatches.push(user);
      if (want !== null) seen.add(want);
    }
    expect(mismatches).toEqual([]);
    expect([...seen].sort()).toEqual(['concise', 'control', 'formal']);

    const formal = users.find((u) => reference.assign('checkout-copy', u) === 'formal') as string;
    const excluded = users.find((u) => reference.assign('checkout-copy', u) === null) as string;
    const ctx = { targetingKey: formal };
    const object = await flags.getObjectDetails('checkout-copy', {}, ctx);
    expect(object).toMatchObject({
      value: { tone: 'formal', max_tokens: 300, bold: false, style: { a: 1 } },
      variant: 'formal',
      reason: 'SPLIT',
      flagMetadata: { experimentId: experiment.id, configVersion: expect.any(Number) },
    });
    expect(await flags.getNumberValue('checkout-copy:max_tokens', 1, ctx)).toBe(300);
    expect(await flags.getBooleanValue('checkout-copy:bold', true, ctx)).toBe(false);
    expect(await flags.getStringValue(`${experiment.id}:tone`, 'x', ctx)).toBe('formal');
    expect(await flags.getObjectValue('checkout-copy:style', {}, ctx)).toEqual({ a: 1 });
    // A variable the variant does not have: the default, with the variant.
    const absent = await flags.getNumberDetails('checkout-copy:missing', 7, ctx);
    expect(absent).toMatchObject({ value: 7, variant: 'formal', reason: 'DEFAULT' });
    expect(absent.errorCode).toBeUndefined();
    // A user the experiment leaves out gets the default.
    const out = await flags.getStringDetails('checkout-copy', 'none', { targetingKey: excluded });
    expect(out).toMatchObject({ value: 'none', reason: 'DEFAULT' });
    expect(out.variant).toBeUndefined();
    await OpenFeature.clearProviders();
    await reference.close();
  });

  it('answers each error code in its case', async () => {
    const unreachable = new Arbiter({
      apiKey: org.publishable,
      baseUrl: 'http://127.0.0.1:9',
      maxAttempts: 1,
      logger: { warn() {}, error() {} },
    });
    const errored = new Promise((resolve) =>
      OpenFeature.addHandler(ProviderEvents.Error, (e) => {
        if (e?.domain === 'down') resolve(e);
      }),
    );
    OpenFeature.setProvider('down', new ArbiterProvider(unreachable));
    await errored;
    const down = OpenFeature.getClient('down');
    const notReady = await down.getStringDetails('checkout-copy', 'd', { targetingKey: 'u' });
    expect(notReady).toMatchObject({ value: 'd', reason: 'ERROR' });
    // The SDK answers PROVIDER_FATAL or PROVIDER_NOT_READY itself for a provider in ERROR;
    // called directly, the provider says the config is not loaded.
    const direct = await new ArbiterProvider(unreachable).resolveStringEvaluation(
      'checkout-copy',
      'd',
      { targetingKey: 'u' },
    );
    expect(direct.errorCode).toBe('PROVIDER_NOT_READY');

    await OpenFeature.setProviderAndWait('errors', new ArbiterProvider(client()));
    const flags = OpenFeature.getClient('errors');
    const ctx = { targetingKey: 'someone' };
    expect((await flags.getStringDetails('no-such-experiment', 'd', ctx)).errorCode).toBe(
      'FLAG_NOT_FOUND',
    );
    expect((await flags.getStringDetails('checkout-copy', 'd', {})).errorCode).toBe(
      'TARGETING_KEY_MISSING',
    );
    const mismatch = await flags.getBooleanDetails('checkout-copy', false, ctx);
    expect(mismatch).toMatchObject({ value: false, errorCode: 'TYPE_MISMATCH', reason: 'ERROR' });
    expect((await flags.getNumberDetails('checkout-copy', 0, ctx)).errorCode).toBe('TYPE_MISMATCH');
    const enrolled = await firstEnrolled(flags);
    const typed = await flags.getBooleanDetails('checkout-copy:tone', false, {
      targetingKey: enrolled,
    });
    expect(typed).toMatchObject({ value: false, errorCode: 'TYPE_MISMATCH' });
    await OpenFeature.clearProviders();
    await unreachable.close();
  });
});
