import { Arbiter } from '@arbiter/client';
import { OpenFeature, ProviderEvents } from '@openfeature/server-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArbiterProvider } from '../src/index.ts';
import {
  createExperiment,
  experimentConfig,
  type Org,
  RealServer,
  waitFor,
} from './support/server.ts';

// Tracking, provider events, lifecycle reasons and shutdown, through the real OpenFeature
// server SDK against the real server.
let server: RealServer;
let org: Org;

function client(overrides: Record<string, unknown> = {}): Arbiter {
  return new Arbiter({
    apiKey: org.publishable,
    baseUrl: server.url,
    pollIntervalMs: 200,
    flushIntervalMs: 3_600_000,
    maxAttempts: 1,
    logger: { warn() {}, error() {} },
    ...overrides,
  });
}

/** The stored events of an experiment today, from the export. */
async function storedEvents(experiment: string): Promise<Record<string, unknown>[]> {
  const day = new Date().toISOString().slice(0, 10);
  const res = await fetch(`${server.url}/v1/events/export?experiment=${experiment}&day=${day}`, {
    headers: { 'x-api-key': org.secret },
  });
  expect(res.status).toBe(200);
  const text = await res.text();
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

beforeAll(async () => {
  server = await new RealServer().start();
  org = await server.newOrg();
});

afterAll(async () => {
  await OpenFeature.close();
  await server?.dispose();
});

describe('the server provider: tracking, events, lifecycle', () => {
  it('sends track as a business event and the exposure once; shutdown flushes both', async () => {
    const experiment = await createExperiment(org, { name: 'tracked', bucket_count: 10_000 });
    await OpenFeature.setProviderAndWait('tracked', new ArbiterProvider(client()));
    const flags = OpenFeature.getClient('tracked');
    let user = '';
    for (let i = 0; user === ''; i++) {
      const details = await flags.getStringDetails('tracked', 'none', { targetingKey: `t-${i}` });
      if (details.reason === 'SPLIT') user = `t-${i}`;
    }
    // Evaluated again, by name and by id: still one exposure today.
    await flags.getStringValue('tracked', 'none', { targetingKey: user });
    await flags.getObjectValue(experiment.id, {}, { targetingKey: user });
    flags.track(
      'checkout',
      { targetingKey: user },
      {
        value: 42.5,
        experiment: 'tracked',
        plan: 'pro',
      },
    );
    // Neither sent yet (the flush interval is an hour): closing the SDK flushes.
    await OpenFeature.clearProviders();
    const events = await storedEvents('tracked');
    const exposures = events.filter((e) => e.type === 'exposure' && e.user_id === user);
    expect(exposures).toHaveLength(1);
    const business = events.filter((e) => e.type === 'business_event');
    expect(business).toHaveLength(1);
    expect(business[0]).toMatchObject({
      user_id: user,
      business_metric: 'checkout',
      value: 42.5,
      experiment_id: experiment.id,
      metadata: { plan: 'pro' },
    });
  });

  it('emits CONFIGURATION_CHANGED after a PUT, STALE when the server is gone, READY when back', async () => {
    const experiment = await createExperiment(org, { name: 'moving', bucket_count: 10_000 });
    const provider = new ArbiterProvider(client());
    await OpenFeature.setProviderAndWait('moving', provider);
    const seen: string[] = [];
    const flags = OpenFeature.getClient('moving');
    for (const event of [
      ProviderEvents.ConfigurationChanged,
      ProviderEvents.Stale,
      ProviderEvents.Ready,
    ]) {
      flags.addHandler(event, () => seen.push(event));
    }
    const before = await flags.getStringDetails('moving', 'none', { targetingKey: 'm-1' });
    const put = await org.session.call(
      'PUT',
      `/v1/experiments/${experiment.id}`,
      experimentConfig({
        name: 'moving',
        bucket_count: 10_000,
        allocation: [
          { variant: 'control', weight: 40 },
          { variant: 'treatment', weight: 40 },
        ],
      }),
    );
    expect(put.status).toBe(200);
    await waitFor(
      () => seen.includes(ProviderEvents.ConfigurationChanged),
      'CONFIGURATION_CHANGED',
    );
    const after = await flags.getStringDetails('moving', 'none', { targetingKey: 'm-1' });
    expect(after.flagMetadata.configVersion).not.toBe(before.flagMetadata.configVersion);

    await server.stop();
    await waitFor(() => seen.includes(ProviderEvents.Stale), 'STALE');
    // The last config keeps serving.
    const stale = await flags.getStringDetails('moving', 'none', { targetingKey: 'm-1' });
    expect(stale.value).toBe(after.value);
    await server.start();
    // The SDK runs a READY handler at once for a provider already ready: READY after STALE.
    await waitFor(
      () => seen.lastIndexOf(ProviderEvents.Ready) > seen.indexOf(ProviderEvents.Stale),
      'READY once the server is back',
    );
    await OpenFeature.clearProviders();
  });

  it('answers STATIC for a stopped experiment, DISABLED for a draft, FLAG_NOT_FOUND once archived', async () => {
    const shipped = await createExperiment(org, { name: 'shipped', bucket_count: 10_000 });
    await createExperiment(org, { name: 'not-yet', status: 'draft' });
    const stop = await org.session.call('POST', `/v1/experiments/${shipped.id}/stop`, {
      conclusion: 'ship',
      variant: 'treatment',
    });
    expect(stop.status).toBe(200);
    await OpenFeature.setProviderAndWait('lifecycle', new ArbiterProvider(client()));
    const flags = OpenFeature.getClient('lifecycle');
    const ctx = { targetingKey: 'anyone' };
    expect(await flags.getStringDetails('shipped', 'none', ctx)).toMatchObject({
      value: 'treatment',
      variant: 'treatment',
      reason: 'STATIC',
    });
    expect(await flags.getNumberValue('shipped:temperature', 0, ctx)).toBe(0.2);
    expect(await flags.getStringDetails('not-yet', 'none', ctx)).toMatchObject({
      value: 'none',
      reason: 'DISABLED',
    });
    // Archived: absent from the config, so not found, as OFREP answers it.
    const seen: string[] = [];
    flags.addHandler(ProviderEvents.ConfigurationChanged, () => seen.push('changed'));
    const archive = await org.session.call('POST', `/v1/experiments/${shipped.id}/archive`);
    expect(archive.status).toBe(200);
    await waitFor(() => seen.length > 0, 'CONFIGURATION_CHANGED after the archive');
    expect(await flags.getStringDetails('shipped', 'none', ctx)).toMatchObject({
      value: 'none',
      reason: 'ERROR',
      errorCode: 'FLAG_NOT_FOUND',
    });
    await OpenFeature.clearProviders();
  });

  it('reads the context fields but targetingKey as the targeting attributes', async () => {
    await createExperiment(org, {
      name: 'pro-only',
      bucket_count: 10_000,
      targeting: { plan: 'pro' },
    });
    await OpenFeature.setProviderAndWait('targeted', new ArbiterProvider(client()));
    const flags = OpenFeature.getClient('targeted');
    const reasons = { pro: new Set<string | undefined>(), free: new Set<string | undefined>() };
    for (let i = 0; i < 200; i++) {
      for (const plan of ['pro', 'free'] as const) {
        const d = await flags.getStringDetails('pro-only', 'none', {
          targetingKey: `p-${i}`,
          plan,
        });
        reasons[plan].add(d.reason);
      }
    }
    expect([...reasons.pro]).toEqual(['SPLIT']);
    expect([...reasons.free]).toEqual(['DEFAULT']);
    await OpenFeature.clearProviders();
  });
});
