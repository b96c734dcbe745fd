import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Arbiter as BrowserArbiter, ArbiterError as BrowserArbiterError } from '../src/browser.ts';
import type { NodeArbiterOptions } from '../src/index.ts';
import { Arbiter, ArbiterError } from '../src/index.ts';
import { DEFAULT_BASE_URL } from '../src/internal/constants.ts';
import { type FakeArbiter, startFakeArbiter } from './support/fake-arbiter.ts';
import { configOf, twoArms } from './support/fixtures.ts';
import { memoryLogger } from './support/logger.ts';
import { recordingFetch } from './support/scenarios.ts';

let fake: FakeArbiter;
const clients: Arbiter[] = [];

beforeAll(async () => {
  const noPrompt = twoArms({
    id: 'np-id',
    name: 'no-prompt',
    variants: [{ key: 'control' }, { key: 'concise', variables: { tone: 'dry' } }],
  });
  fake = await startFakeArbiter({ config: configOf(1, twoArms(), noPrompt) });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  vi.unstubAllEnvs();
});
afterAll(() => fake.close());

function client(extra: NodeArbiterOptions = {}): Arbiter {
  const c = new Arbiter({
    apiKey: fake.apiKey,
    baseUrl: fake.baseUrl,
    logger: memoryLogger(),
    flushIntervalMs: 3_600_000,
    ...extra,
  });
  clients.push(c);
  return c;
}

/** Users of each arm of `checkout-prompt`, found through assign itself. */
function usersByArm(c: Arbiter): Record<string, string> {
  const found: Record<string, string> = {};
  for (let i = 0; Object.keys(found).length < 2; i++) {
    const v = c.assign('checkout-prompt', `user-${i}`);
    if (v !== null) found[v] ??= `user-${i}`;
  }
  return found;
}

describe('getPrompt and getVariables', () => {
  it('return the defaults, flagged as fallback, until the config is loaded', async () => {
    const c = client();
    expect(c.getPrompt('checkout-prompt', 'user-1', 'Default.')).toEqual({
      variant: null,
      prompt: 'Default.',
      fallback: true,
    });
    expect(c.getVariables('checkout-prompt', 'user-1', { temperature: 1 })).toEqual({
      temperature: 1,
    });
    await c.ready();
  });

  it("return the variant's prompt and its variables merged over the defaults", async () => {
    const c = client();
    await c.ready();
    const arms = usersByArm(c);
    expect(c.getPrompt('checkout-prompt', arms.concise ?? '', 'Default.')).toEqual({
      variant: 'concise',
      prompt: 'Answer in one sentence.',
      fallback: false,
    });
    expect(c.getPrompt('0b6f1c9e-7c1a-4d3e-9a43-0c1a2b3c4d5e', arms.control ?? '', 'D')).toEqual({
      variant: 'control',
      prompt: 'You are a helpful assistant.',
      fallback: false,
    });
    const defaults = { temperature: 1, max_tokens: 50 };
    expect(c.getVariables('checkout-prompt', arms.concise ?? '', defaults)).toEqual({
      temperature: 0.2,
      max_tokens: 50,
    });
    expect(defaults).toEqual({ temperature: 1, max_tokens: 50 });
  });

  it('fall back when the variant has no prompt or the experiment is unknown', async () => {
    const c = client();
    await c.ready();
    const user = usersByArm(c).control ?? '';
    const variant = c.assign('no-prompt', user);
    expect(variant).not.toBeNull();
    const result = c.getPrompt('no-prompt', user, 'Default.');
    expect(result).toEqual({ variant, prompt: 'Default.', fallback: true });
    expect(c.getPrompt('nope', user, 'D')).toEqual({ variant: null, prompt: 'D', fallback: true });
    expect(c.getVariables('nope', user, { a: 1 })).toEqual({ a: 1 });
  });
});

describe('exposures from assign', () => {
  it('sends one exposure per user and experiment, with the canonical id', async () => {
    const sent = recordingFetch();
    const c = client({ fetch: sent.fetch });
    await c.ready();
    for (let i = 0; i < 3; i++) {
      c.assign('checkout-prompt', 'user-1');
      c.assign('0b6f1c9e-7c1a-4d3e-9a43-0c1a2b3c4d5e', 'user-1');
      c.getPrompt('checkout-prompt', 'user-2', 'D');
    }
    await c.flush();
    const exposures = sent.events();
    expect(exposures.map((e) => e.user_id).sort()).toEqual(['user-1', 'user-2']);
    for (const e of exposures) {
      expect(e).toMatchObject({
        type: 'exposure',
        experiment_id: '0b6f1c9e-7c1a-4d3e-9a43-0c1a2b3c4d5e',
        variant: c.assign('checkout-prompt', e.user_id),
      });
      expect(e.event_id).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('sends none with trackExposures: false, and none for ids the API would refuse', async () => {
    const sent = recordingFetch();
    const c = client({ fetch: sent.fetch, trackExposures: false });
    await c.ready();
    c.assign('checkout-prompt', 'user-1');
    await c.flush();
    const d = client({ fetch: sent.fetch });
    await d.ready();
    expect(d.assign('checkout-prompt', '')).not.toBeNull();
    expect(d.assign('checkout-prompt', 'x'.repeat(257))).not.toBeNull();
    // the text rule: bucketed like any id (the vectors), never sent as an exposure
    expect(d.assign('checkout-prompt', 'a\u0000b')).not.toBeNull();
    expect(d.assign('checkout-prompt', 'a\ud800b')).not.toBeNull();
    await d.flush();
    expect(sent.events()).toEqual([]);
  });
});

describe('track', () => {
  it('fills in event_id, type and timestamp and resolves the name to the id', async () => {
    const sent = recordingFetch();
    const c = client({ fetch: sent.fetch, trackExposures: false });
    await c.ready();
    c.track('business_event', {
      experiment_id: 'checkout-prompt',
      user_id: 'user-1',
      business_metric: 'revenue',
      value: 9.5,
      metadata: { arbiter_test: true },
    });
    await c.flush();
    const [event] = sent.events();
    expect(event).toMatchObject({
      type: 'business_event',
      experiment_id: '0b6f1c9e-7c1a-4d3e-9a43-0c1a2b3c4d5e',
      user_id: 'user-1',
      business_metric: 'revenue',
      value: 9.5,
      metadata: { arbiter_test: true },
    });
    expect(new Date(event?.timestamp ?? '').toISOString()).toBe(event?.timestamp);
    expect(fake.events.get(event?.event_id ?? '')).toEqual(event);
  });

  it('refuses a business_event without its metric or value, with a log line', () => {
    const logger = memoryLogger();
    const c = client({ logger });
    c.track('business_event', { experiment_id: 'x', user_id: 'u', value: 1 });
    c.track('business_event', { experiment_id: 'x', user_id: 'u', business_metric: 'm' });
    expect(c.stats().queued).toBe(0);
    expect(logger.lines).toHaveLength(2);
  });

  it('queues no event the API would refuse — text rule, numeric domains, metadata limits — one log line each', () => {
    const logger = memoryLogger();
    const c = client({ logger, trackExposures: false });
    const outcome = (extra: Record<string, unknown>) => ({
      experiment_id: 'checkout-prompt',
      user_id: 'user-1',
      business_metric: 'revenue',
      value: 1,
      ...extra,
    });
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 5_000; i++) deep = { a: deep };
    const refused = [
      outcome({ value: 1e155 }),
      outcome({ user_id: 'a\u0000b' }),
      outcome({ business_metric: 'rev\ud800' }),
      outcome({ metadata: { note: 'x\u0000' } }),
      outcome({ metadata: deep }),
      outcome({ metadata: { pad: 'x'.repeat(70_000) } }),
      outcome({ variant: '' }),
    ];
    for (const payload of refused) c.track('business_event', payload);
    c.track('model_call', { experiment_id: 'checkout-prompt', user_id: 'u', latency_ms: 9e7 });
    c.track('model_call', { experiment_id: 'checkout-prompt', user_id: 'u', input_tokens: 1.5 });
    expect(c.stats().queued).toBe(0);
    expect(logger.lines).toHaveLength(refused.length + 2);
    c.track('business_event', outcome({ value: 1e12, metadata: { a: { b: 'ok 😀' } } }));
    expect(c.stats().queued).toBe(1);
  });
});

describe('calls not made on the instance itself', () => {
  it('work through a Proxy of the client (reactive state) and detached', async () => {
    const c = client();
    const viaProxy = new Proxy(c, {});
    expect(await viaProxy.ready()).toBe(true);
    const arms = usersByArm(c);
    expect(viaProxy.assign('checkout-prompt', arms.concise ?? '')).toBe('concise');
    expect(viaProxy.getPrompt('checkout-prompt', arms.control ?? '', 'D').variant).toBe('control');
    const { track, flush, stats } = c;
    track('business_event', {
      experiment_id: 'checkout-prompt',
      user_id: 'u',
      business_metric: 'm',
      value: 1,
    });
    await flush();
    expect(stats()).toMatchObject({ queued: 0, sent: 3, dropped: 0 });
    await viaProxy.close();
  });

  it('leave the instance without enumerable properties', () => {
    expect(Object.keys(client())).toEqual([]);
  });
});

describe('construction', () => {
  it('reads ARBITER_API_KEY and ARBITER_BASE_URL when no option is given', async () => {
    vi.stubEnv('ARBITER_API_KEY', fake.apiKey);
    vi.stubEnv('ARBITER_BASE_URL', fake.baseUrl);
    const c = new Arbiter({ logger: memoryLogger() });
    clients.push(c);
    expect(await c.ready()).toBe(true);
  });

  it('prefers the options over the environment', async () => {
    vi.stubEnv('ARBITER_API_KEY', 'svc_pk_from_env');
    vi.stubEnv('ARBITER_BASE_URL', 'http://127.0.0.1:1');
    expect(await client().ready()).toBe(true);
  });

  it('defaults to the production address', async () => {
    vi.stubEnv('ARBITER_BASE_URL', undefined);
    const urls: string[] = [];
    const c = client({
      baseUrl: undefined,
      maxAttempts: 1,
      fetch: async (input) => {
        urls.push(String(input));
        return new Response(null, { status: 503 });
      },
    });
    await c.ready();
    expect(DEFAULT_BASE_URL).toBe('https://api.arbiter.dev');
    expect(urls).toEqual(['https://api.arbiter.dev/v1/config']);
  });

  it('throws at construction without a key, as the Python client does', () => {
    vi.stubEnv('ARBITER_API_KEY', undefined);
    expect(() => new Arbiter({ baseUrl: fake.baseUrl })).toThrow(/ARBITER_API_KEY/);
  });

  it('fails with one ArbiterError class, the same in the Node and browser builds', () => {
    vi.stubEnv('ARBITER_API_KEY', '');
    expect(BrowserArbiterError).toBe(ArbiterError);
    const failures = [
      () => new Arbiter({ baseUrl: fake.baseUrl }),
      () => new BrowserArbiter({ apiKey: '', baseUrl: fake.baseUrl }),
    ];
    for (const construct of failures) {
      expect(construct).toThrow(ArbiterError);
      expect(construct).toThrow(expect.objectContaining({ name: 'ArbiterError' }));
    }
  });

  it('throws an ArbiterError in a runtime without fetch', () => {
    vi.stubGlobal('fetch', undefined);
    try {
      const construct = () => new Arbiter({ apiKey: fake.apiKey, baseUrl: fake.baseUrl });
      expect(construct).toThrow(ArbiterError);
      expect(construct).toThrow(/no fetch/);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
