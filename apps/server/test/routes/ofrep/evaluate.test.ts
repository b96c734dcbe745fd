import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../support/harness.ts';
import { ingestProbe } from '../../support/ingest-probe.ts';
import { documentedWith, storedEventsOf } from '../../support/security-matrix.ts';

/** OFREP's routes over HTTP on the real app: every error with its code and status, the mapping, exposures. */
let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
let other: Awaited<ReturnType<Harness['org']>>;
let running: string;

const evaluate = (key: string | null, flag: string, payload: unknown, extra: InjectOptions = {}) =>
  h.ingest(key, {
    method: 'POST',
    url: `/ofrep/v1/evaluate/flags/${encodeURIComponent(flag)}`,
    ...(payload === undefined ? {} : { payload: payload as object }),
    ...extra,
  });
const ctx = (targetingKey: unknown, attributes: object = {}) => ({
  context: { targetingKey, ...attributes },
});
/** A user whose bucket (of 1000, salt-1) is control's or treatment's, found through assign. */
async function userOf(experiment: string, variant: string | null): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const res = await h.ingest(acme.secret, {
      method: 'POST',
      url: '/v1/assign',
      payload: { experiment_id: experiment, user_id: `u-${i}` },
    });
    if (res.json().variant === variant) return `u-${i}`;
  }
  throw new Error(`no user gets ${variant}`);
}

beforeAll(async () => {
  h = await startHarness();
  acme = await h.org('ofrep-acme');
  other = await h.org('ofrep-other');
  running = await h.experiment(acme.admin, {
    name: 'tone',
    allocation: [
      { variant: 'control', weight: 40 },
      { variant: 'treatment', weight: 40 },
    ],
    variants: [
      { key: 'control', variables: { temperature: 0.7, style: { register: 'plain' } } },
      { key: 'treatment', variables: { temperature: 0.2 } },
    ],
  });
});
afterAll(() => h.close());

describe('errors, each with its code and status', () => {
  it('answers 401 problems without a key and with an unknown one, in either header', async () => {
    const none = await evaluate(null, 'tone', ctx('u-1'));
    expect(none.statusCode).toBe(401);
    expect(none.json()).toMatchObject({
      type: '/problems/missing-credential',
      detail: 'Send your Arbiter API key in the X-API-Key header or as Authorization: Bearer <key>',
    });
    const unknown = await evaluate(null, 'tone', ctx('u-1'), {
      headers: { authorization: 'Bearer svc_sk_not-a-key' },
    });
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json().type).toBe('/problems/invalid-credential');
  });

  it('admits the publishable and the secret key, as X-API-Key or as a bearer token', async () => {
    for (const key of [acme.publishable, acme.secret]) {
      expect((await evaluate(key, 'tone', ctx('u-1'))).statusCode).toBe(200);
      const bearer = await evaluate(null, 'tone', ctx('u-1'), {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(bearer.statusCode).toBe(200);
    }
  });

  it('answers PARSE_ERROR 400 to a body that is not JSON', async () => {
    for (const payload of ['{"context":', '']) {
      const res = await evaluate(acme.secret, 'tone', undefined, {
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        key: 'tone',
        errorCode: 'PARSE_ERROR',
        errorDetails: 'The body could not be parsed as JSON',
      });
    }
  });

  it('answers TARGETING_KEY_MISSING 400 without a targeting key', async () => {
    for (const body of [{ context: {} }, { context: { plan: 'pro' } }, ctx('')]) {
      const res = await evaluate(acme.secret, 'tone', body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        key: 'tone',
        errorCode: 'TARGETING_KEY_MISSING',
        errorDetails: 'context.targetingKey (the user id) is required',
      });
    }
  });

  it('answers INVALID_CONTEXT 400 to a context that is not one', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'context must be a JSON object'],
      [{ context: 'u-1' }, 'context must be a JSON object'],
      [ctx(42), 'context.targetingKey must be a string'],
      [ctx('x'.repeat(257)), 'context.targetingKey must be at most 256 characters'],
      [ctx('u-1', { plan: 'a\u0000b' }), 'context at /plan: contains a NUL'],
    ];
    for (const [body, detail] of cases) {
      const res = await evaluate(acme.secret, 'tone', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()).toMatchObject({ key: 'tone', errorCode: 'INVALID_CONTEXT' });
      expect(res.json().errorDetails).toContain(detail);
    }
  });

  it('answers FLAG_NOT_FOUND 404 to an unknown flag, and to another org’s, by name or id', async () => {
    for (const flag of ['nope', 'nope:temperature', 'tone', running, `${running}:$variant`]) {
      const key = flag.startsWith('nope') ? acme.secret : other.secret;
      const res = await evaluate(key, flag, ctx('u-1'));
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({
        key: flag,
        errorCode: 'FLAG_NOT_FOUND',
        errorDetails: `No experiment of your org has the id or name "${flag.split(':')[0]}"`,
      });
    }
  });

  it('answers the bulk route’s errors without a key', async () => {
    const bulk = (payload: unknown, headers = {}) =>
      h.ingest(acme.secret, {
        method: 'POST',
        url: '/ofrep/v1/evaluate/flags',
        headers,
        payload: payload as string,
      });
    const parse = await bulk('{', { 'content-type': 'application/json' });
    expect(parse.statusCode).toBe(400);
    expect(parse.json()).toMatchObject({ errorCode: 'PARSE_ERROR' });
    expect((await bulk({ context: {} })).json()).toMatchObject({
      errorCode: 'TARGETING_KEY_MISSING',
    });
    const invalid = await bulk({ context: [] });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toEqual({
      errorCode: 'INVALID_CONTEXT',
      errorDetails: 'context must be a JSON object',
    });
  });
});

describe('what a flag key resolves', () => {
  it('gives the variables object, the variant key and one variable, with SPLIT and metadata', async () => {
    const user = await userOf('tone', 'control');
    const configVersion = (await h.ingest(acme.secret, { method: 'GET', url: '/v1/config' })).json()
      .config_version;
    const metadata = { experimentId: running, configVersion };
    const base = { reason: 'SPLIT', variant: 'control', metadata };
    const cases: Array<[string, unknown]> = [
      ['tone', { temperature: 0.7, style: { register: 'plain' } }],
      [running, { temperature: 0.7, style: { register: 'plain' } }],
      ['tone:$variant', 'control'],
      ['tone:temperature', 0.7],
      ['tone:style', { register: 'plain' }],
    ];
    for (const [flag, value] of cases) {
      const res = await evaluate(acme.publishable, flag, ctx(user));
      expect(res.json()).toEqual({ key: flag, value, ...base });
    }
    // A variable the user's variant lacks: no value (the code default), reason DEFAULT.
    const absent = await evaluate(acme.publishable, 'tone:missing', ctx(user));
    expect(absent.json()).toEqual({
      key: 'tone:missing',
      reason: 'DEFAULT',
      variant: 'control',
      metadata,
    });
  });

  it('gives excluded users the code default with DEFAULT, the targeting’s included', async () => {
    const outsider = await userOf('tone', null);
    const res = await evaluate(acme.publishable, 'tone', ctx(outsider));
    expect(res.json()).toMatchObject({ key: 'tone', reason: 'DEFAULT' });
    expect(res.json()).not.toHaveProperty('value');
    expect(res.json()).not.toHaveProperty('variant');
    await h.experiment(acme.admin, { name: 'pro-only', targeting: { plan: 'pro' } });
    const free = await evaluate(acme.publishable, 'pro-only', ctx('u-1', { plan: 'free' }));
    expect(free.json()).toMatchObject({ reason: 'DEFAULT' });
    expect(free.json()).not.toHaveProperty('value');
    const pro = await evaluate(acme.publishable, 'pro-only:$variant', ctx('u-1', { plan: 'pro' }));
    expect(pro.json().value).toBe(
      (
        await h.ingest(acme.secret, {
          method: 'POST',
          url: '/v1/assign',
          payload: { experiment_id: 'pro-only', user_id: 'u-1', attributes: { plan: 'pro' } },
        })
      ).json().variant,
    );
  });

  it('gives STATIC for a stopped experiment’s variant, DISABLED for a draft, FLAG_NOT_FOUND once archived', async () => {
    await h.experiment(acme.admin, { name: 'shipped' });
    const stop = await h.call(acme.admin, {
      method: 'POST',
      url: '/v1/experiments/shipped/stop',
      payload: { conclusion: 'ship', variant: 'treatment' },
    });
    expect(stop.statusCode).toBe(200);
    const shipped = await evaluate(acme.publishable, 'shipped:$variant', ctx('u-1'));
    expect(shipped.json()).toMatchObject({
      value: 'treatment',
      reason: 'STATIC',
      variant: 'treatment',
    });
    await h.experiment(acme.admin, { name: 'drafted', status: 'draft' });
    const draft = await evaluate(acme.publishable, 'drafted', ctx('u-1'));
    expect(draft.json()).toMatchObject({ key: 'drafted', reason: 'DISABLED' });
    expect(draft.json()).not.toHaveProperty('value');
    const archive = await h.call(acme.admin, {
      method: 'POST',
      url: '/v1/experiments/shipped/archive',
    });
    expect(archive.statusCode).toBe(200);
    // Absent from the config, the bulk route and the providers: not found by the single route too.
    const archived = await evaluate(acme.publishable, 'shipped', ctx('u-1'));
    expect(archived.statusCode).toBe(404);
    expect(archived.json()).toEqual({
      key: 'shipped',
      errorCode: 'FLAG_NOT_FOUND',
      errorDetails: expect.any(String),
    });
  });
});

describe('exposures', () => {
  it('records an assigned user’s exposure once a day, metered; assign and excluded users none', async () => {
    const id = await h.experiment(acme.admin, { name: 'exposed' });
    const probe = ingestProbe(h);
    const meteredBefore = await probe.metered(acme.orgId);
    const assignedUser = 'exposed-user-1';
    const assigned = await h.ingest(acme.secret, {
      method: 'POST',
      url: '/v1/assign',
      payload: { experiment_id: id, user_id: assignedUser },
    });
    await h.ctx.serverExposures.flush();
    expect(await storedEventsOf(h, id)).toBe(0);
    for (const flag of ['exposed', 'exposed:$variant', `${id}:temperature`])
      expect((await evaluate(acme.publishable, flag, ctx(assignedUser))).statusCode).toBe(200);
    const bulk = await h.ingest(acme.publishable, {
      method: 'POST',
      url: '/ofrep/v1/evaluate/flags',
      payload: ctx(assignedUser),
    });
    expect(bulk.statusCode).toBe(200);
    await h.ctx.serverExposures.flush();
    expect(await storedEventsOf(h, id)).toBe(assigned.json().variant === null ? 0 : 1);
    expect(await probe.metered(acme.orgId)).toBeGreaterThan(meteredBefore);
    const metered = await probe.metered(acme.orgId);
    // Evaluated again, nothing more is stored or metered.
    await evaluate(acme.publishable, 'exposed', ctx(assignedUser));
    await h.ctx.serverExposures.flush();
    expect(await storedEventsOf(h, id)).toBe(1);
    expect(await probe.metered(acme.orgId)).toBe(metered);
  });
});

describe('the bulk route’s ETag', () => {
  const bulk = (targetingKey: string, attributes: object = {}, etag?: string) =>
    h.ingest(acme.publishable, {
      method: 'POST',
      url: '/ofrep/v1/evaluate/flags',
      headers: etag === undefined ? {} : { 'if-none-match': etag },
      payload: ctx(targetingKey, attributes),
    });

  it('answers 304 while nothing changed, and a new tag for another context or a PUT', async () => {
    const first = await bulk('u-1', { plan: 'pro' });
    expect(first.statusCode).toBe(200);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const keys = first.json().flags.map((f: { key: string }) => f.key);
    expect(keys).toEqual(
      expect.arrayContaining(['tone', 'tone:$variant', 'tone:style', 'tone:temperature']),
    );
    const again = await bulk('u-1', { plan: 'pro' }, etag);
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);
    // The targeting reads plan: another plan is another answer, so another tag.
    const free = await bulk('u-1', { plan: 'free' }, etag);
    expect(free.statusCode).toBe(200);
    expect(free.headers.etag).not.toBe(etag);
    const put = await h.call(acme.admin, {
      method: 'PUT',
      url: '/v1/experiments/tone',
      payload: { description: 'changed' },
    });
    expect(put.statusCode).toBe(200);
    const changed = await bulk('u-1', { plan: 'pro' }, etag);
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    expect((await bulk('u-1', { plan: 'pro' }, changed.headers.etag as string)).statusCode).toBe(
      304,
    );
  });
});

describe('the OpenAPI document', () => {
  it('lists exactly the two OFREP routes under the bearer-key scheme, with X-API-Key too', async () => {
    expect((await documentedWith(h, 'bearerKey')).sort()).toEqual([
      'POST /ofrep/v1/evaluate/flags',
      'POST /ofrep/v1/evaluate/flags/{key}',
    ]);
    const keyed = await documentedWith(h, 'apiKey');
    expect(keyed).toEqual(expect.arrayContaining(['POST /ofrep/v1/evaluate/flags']));
  });
});
