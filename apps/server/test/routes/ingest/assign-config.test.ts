import { bucketOf, variantForBucket } from '@arbiter/bucketing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { experimentConfig, type Harness, startHarness } from '../../support/harness.ts';

let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
let experiment: {
  id: string;
  name: string;
  salt: string;
  bucket_count: number;
  bucket_ranges: Array<{ variant: string; start: number; end: number }>;
};

beforeAll(async () => {
  h = await startHarness();
  acme = await h.org('acme');
  const created = await h.call(acme.admin, {
    method: 'POST',
    url: '/v1/experiments',
    payload: experimentConfig({
      name: 'checkout-prompt',
      allocation: [
        { variant: 'control', weight: 40 },
        { variant: 'treatment', weight: 40 },
      ],
    }),
  });
  experiment = created.json();
});
afterAll(() => h.close());

const assign = (key: string | null, body: object) =>
  h.ingest(key, { method: 'POST', url: '/v1/assign', payload: body });

describe('API-key authentication', () => {
  it('answers 401 without a key, with an unknown key and with a rotated-away key, saying which', async () => {
    const missing = await assign(null, { experiment_id: 'x', user_id: 'u' });
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toMatchObject({
      type: '/problems/missing-credential',
      detail: 'Send your Arbiter API key in the X-API-Key header',
    });
    const unknown = await assign('svc_pk_nope', { experiment_id: 'x', user_id: 'u' });
    expect(unknown.json()).toMatchObject({ status: 401, detail: 'This API key is not known' });
    const old = (await h.org('rotating')).publishable;
    const admin = await h.idp.sign({
      sub: 'admin-of-rotating',
      org_id: 'rotating',
      org_role: 'admin',
    });
    await h.call(admin, { method: 'POST', url: '/v1/keys', payload: { scope: 'publishable' } });
    const rotated = await assign(old, { experiment_id: 'x', user_id: 'u' });
    expect(rotated.statusCode).toBe(401);
    expect(rotated.json().detail).toBe(
      'This API key was rotated away; use the current key of its scope',
    );
  });

  it('takes the org from the key: another org’s key does not see this experiment', async () => {
    const other = await h.org('other');
    const res = await assign(other.secret, { experiment_id: experiment.id, user_id: 'u1' });
    expect(res.json()).toMatchObject({ variant: null, reason: 'unknown_experiment' });
  });

  it('refuses the publishable key on the import route with a 401 that says so', async () => {
    const res = await h.ingest(acme.publishable, {
      method: 'POST',
      url: '/v1/events/import',
      headers: { 'content-type': 'application/x-ndjson' },
      payload: '{}\n',
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().detail).toBe(
      'This route needs the secret key (svc_sk_); a publishable key may not use it',
    );
  });
});

describe('GET /v1/config', () => {
  it('serves the org config with an ETag and answers 304 to If-None-Match', async () => {
    const first = await h.ingest(acme.publishable, { method: 'GET', url: '/v1/config' });
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    // Served again from the version's serialized bytes: the same bytes.
    const repeat = await h.ingest(acme.publishable, { method: 'GET', url: '/v1/config' });
    expect(repeat.body).toBe(first.body);
    const body = first.json();
    expect(first.headers.etag).toBe(`"${body.config_version}"`);
    expect(body.bucketing_version).toBe('1');
    expect(body.experiments).toEqual([
      {
        id: experiment.id,
        name: 'checkout-prompt',
        version: 1,
        salt: 'salt-1',
        bucket_count: 1000,
        ranges: experiment.bucket_ranges,
        variants: [
          { key: 'control', prompt: 'You are helpful.', variables: { temperature: 0.7 } },
          { key: 'treatment', prompt: 'Be concise.', variables: { temperature: 0.2 } },
        ],
      },
    ]);
    const again = await h.ingest(acme.publishable, {
      method: 'GET',
      url: '/v1/config',
      headers: { 'if-none-match': first.headers.etag as string },
    });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const stale = await h.ingest(acme.publishable, {
      method: 'GET',
      url: '/v1/config',
      headers: { 'if-none-match': '"0"' },
    });
    expect(stale.statusCode).toBe(200);
  });

  it('moves config_version in config, assign and the ingest ack after a PUT', async () => {
    const before = (await h.ingest(acme.secret, { method: 'GET', url: '/v1/config' })).json()
      .config_version;
    const ackBefore = await h.ingest(acme.secret, {
      method: 'POST',
      url: '/v1/events',
      payload: {
        events: [
          {
            event_id: 'cv-1',
            type: 'exposure',
            experiment_id: experiment.id,
            user_id: 'u',
            timestamp: new Date().toISOString(),
          },
        ],
      },
    });
    expect(ackBefore.json().config_version).toBe(before);
    await h.call(acme.admin, {
      method: 'PUT',
      url: `/v1/experiments/${experiment.id}`,
      payload: { description: 'v2' },
    });
    const config = await h.ingest(acme.secret, {
      method: 'GET',
      url: '/v1/config',
      headers: { 'if-none-match': `"${before}"` },
    });
    expect(config.statusCode).toBe(200);
    expect(config.json().config_version).toBe(before + 1);
    expect(
      (await assign(acme.secret, { experiment_id: experiment.id, user_id: 'u' })).json()
        .config_version,
    ).toBe(before + 1);
    const ack = await h.ingest(acme.secret, {
      method: 'POST',
      url: '/v1/events',
      payload: {
        events: [
          {
            event_id: 'cv-2',
            type: 'exposure',
            experiment_id: experiment.id,
            user_id: 'u',
            timestamp: new Date().toISOString(),
          },
        ],
      },
    });
    expect(ack.json().config_version).toBe(before + 1);
  });
});

describe('POST /v1/assign', () => {
  it('matches local bucketing for 2,000 users, by name and by id alike, with null outside every slice', async () => {
    let nulls = 0;
    for (let i = 0; i < 2000; i++) {
      const user = `user-${i}`;
      const expected = variantForBucket(
        experiment.bucket_ranges,
        bucketOf(experiment.salt, user, experiment.bucket_count),
      );
      const byId = (
        await assign(acme.publishable, { experiment_id: experiment.id, user_id: user })
      ).json();
      const byName = (
        await assign(acme.publishable, { experiment_id: 'checkout-prompt', user_id: user })
      ).json();
      expect(byId.variant).toBe(expected);
      expect(byName.variant).toBe(expected);
      if (expected === null) {
        nulls++;
        expect(byId.reason).toBe('not_enrolled');
      }
    }
    // 20% of buckets are outside every slice
    expect(nulls).toBeGreaterThan(300);
    expect(nulls).toBeLessThan(500);
  });

  it('is not metered', async () => {
    const before = (await h.call(acme.admin, { method: 'GET', url: '/v1/usage' })).json().events
      .used;
    await assign(acme.publishable, { experiment_id: experiment.id, user_id: 'free' });
    expect((await h.call(acme.admin, { method: 'GET', url: '/v1/usage' })).json().events.used).toBe(
      before,
    );
  });

  it('rejects a body without user_id', async () => {
    const res = await assign(acme.publishable, { experiment_id: experiment.id });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ pointer: '#/user_id', detail: 'is required' }]);
  });
});

describe('CORS for browser clients', () => {
  it('answers a preflight without a key and exposes ETag and Retry-After', async () => {
    const preflight = await h.app.inject({
      method: 'OPTIONS',
      url: '/v1/events',
      headers: {
        origin: 'https://shop.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-api-key,content-type',
      },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(String(preflight.headers['access-control-allow-headers'])).toContain('x-api-key');
    const config = await h.ingest(acme.publishable, {
      method: 'GET',
      url: '/v1/config',
      headers: { origin: 'https://shop.example' },
    });
    expect(config.headers['access-control-expose-headers']).toBe('etag, retry-after');
  });

  it('gives every ingest answer, success or problem, with or without Origin, the same CORS headers', async () => {
    const cors = (res: { headers: Record<string, unknown> }) =>
      Object.fromEntries(
        Object.entries(res.headers).filter(
          ([k]) => k.startsWith('access-control-') || k === 'vary',
        ),
      );
    const expected = {
      'access-control-allow-origin': '*',
      'access-control-expose-headers': 'etag, retry-after',
    };
    const body = { experiment_id: experiment.id, user_id: 'u-1' };
    for (const headers of [{}, { origin: 'https://shop.example' }]) {
      const ok = await h.ingest(acme.publishable, {
        method: 'POST',
        url: '/v1/assign',
        payload: body,
        headers,
      });
      const noKey = await h.ingest(null, {
        method: 'POST',
        url: '/v1/assign',
        payload: body,
        headers,
      });
      const bad = await h.ingest(acme.publishable, {
        method: 'POST',
        url: '/v1/assign',
        payload: { user_id: 'u' },
        headers,
      });
      const events = await h.ingest(acme.publishable, {
        method: 'POST',
        url: '/v1/events',
        payload: { events: [] },
        headers,
      });
      expect([ok, noKey, bad].map((r) => r.statusCode)).toEqual([200, 401, 400]);
      for (const res of [ok, noKey, bad, events]) expect(cors(res)).toEqual(expected);
    }
  });
});
