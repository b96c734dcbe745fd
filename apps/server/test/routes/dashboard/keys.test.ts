import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findActiveKey } from '../../../src/domain/keys.ts';
import { activeWebhookSecret } from '../../../src/domain/webhook-secrets.ts';
import { type Harness, startHarness } from '../../support/harness.ts';

let h: Harness;
let admin: string;
let member: string;

beforeAll(async () => {
  h = await startHarness();
  admin = await h.token({
    sub: 'kay',
    name: 'Kay Admin',
    email: 'kay@acme.test',
    org_id: 'acme',
    org_role: 'admin',
  });
  member = await h.token({ sub: 'mo', org_id: 'acme', org_role: 'member' });
});
afterAll(() => h.close());

const rotate = (scope: string) =>
  h.call(admin, { method: 'POST', url: '/v1/keys', payload: { scope } });

describe('POST /v1/keys', () => {
  it.each([
    ['publishable', 'svc_pk_'],
    ['secret', 'svc_sk_'],
  ])('creates a %s key with its prefix and at least 192 random bits', async (scope, prefix) => {
    const res = await rotate(scope);
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.scope).toBe(scope);
    expect(body.key.startsWith(prefix)).toBe(true);
    const randomPart = Buffer.from(body.key.slice(prefix.length), 'base64url');
    expect(randomPart.length * 8).toBeGreaterThanOrEqual(192);
    expect(await findActiveKey(h.ctx.db, body.key)).toMatchObject({ scope, revoked: false });
  });

  it('rotation invalidates the previous key of the scope at once and leaves the other scope alone', async () => {
    const pub1 = (await rotate('publishable')).json().key;
    const sec = (await rotate('secret')).json().key;
    const pub2 = (await rotate('publishable')).json().key;
    expect(pub2).not.toBe(pub1);
    expect(await findActiveKey(h.ctx.db, pub1)).toMatchObject({ revoked: true });
    expect(await findActiveKey(h.ctx.db, pub2)).toMatchObject({ revoked: false });
    expect(await findActiveKey(h.ctx.db, sec)).toMatchObject({ revoked: false });
    expect(await findActiveKey(h.ctx.db, 'svc_pk_unknown')).toBeNull();
    const trail = (
      await h.call(admin, { method: 'GET', url: '/v1/audit?target_id=publishable' })
    ).json();
    expect(trail[0]).toMatchObject({
      action: 'key.rotated',
      actor: { name: 'Kay Admin', email: 'kay@acme.test' },
    });
  });

  it('rejects an unknown scope with a pointer', async () => {
    const res = await rotate('root');
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      { pointer: '#/scope', detail: 'must be equal to one of the allowed values' },
    ]);
  });
});

describe('GET /v1/keys', () => {
  it('lists one active key per scope and never the raw key', async () => {
    const raw = (await rotate('secret')).json().key;
    const res = await h.call(member, { method: 'GET', url: '/v1/keys' });
    expect(res.statusCode).toBe(200);
    expect(res.json().map((k: { scope: string }) => k.scope)).toEqual(['publishable', 'secret']);
    expect(res.body).not.toContain(raw);
    expect(res.json()[1]).toMatchObject({
      scope: 'secret',
      revealable: true,
      hint: `${raw.slice(0, 7)}…${raw.slice(-4)}`,
    });
  });
});

describe('GET /v1/keys/{scope}/reveal', () => {
  it('returns the raw active key to an admin and writes an audit entry', async () => {
    const raw = (await rotate('publishable')).json().key;
    const res = await h.call(admin, { method: 'GET', url: '/v1/keys/publishable/reveal' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ scope: 'publishable', key: raw });
    const trail = (
      await h.call(admin, { method: 'GET', url: '/v1/audit?target_id=publishable' })
    ).json();
    expect(trail[0]).toMatchObject({ action: 'key.revealed', actor: { email: 'kay@acme.test' } });
  });

  it('answers 404 when no key of the scope is active', async () => {
    const other = await h.token({ sub: 'z', org_id: 'empty-org', org_role: 'admin' });
    const res = await h.call(other, { method: 'GET', url: '/v1/keys/secret/reveal' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      type: '/problems/key-not-revealable',
      title: 'No revealable key',
      status: 404,
      detail: 'No secret key is active in your org; create one with POST /v1/keys',
      instance: '/v1/keys/secret/reveal',
    });
  });

  it('rejects an unknown scope in the path', async () => {
    const res = await h.call(admin, { method: 'GET', url: '/v1/keys/master/reveal' });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].parameter).toBe('scope');
  });
});

describe('webhook secrets', () => {
  it('reports not configured, then shows a new secret once; rotation invalidates the old at once', async () => {
    const org = await h.token({ sub: 'w', org_id: 'hooks', org_role: 'owner' });
    expect((await h.call(org, { method: 'GET', url: '/v1/webhook-secrets' })).json()).toEqual({
      configured: false,
      created_at: null,
    });
    const first = await h.call(org, { method: 'POST', url: '/v1/webhook-secrets' });
    expect(first.statusCode).toBe(201);
    expect(first.json().secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const status = await h.call(org, { method: 'GET', url: '/v1/webhook-secrets' });
    expect(status.json().configured).toBe(true);
    expect(status.body).not.toContain(first.json().secret);
    const orgId = (await h.call(org, { method: 'GET', url: '/v1/whoami' })).json().org_id;
    expect(await activeWebhookSecret(h.ctx.db, h.ctx.secretBox, orgId)).toBe(first.json().secret);
    const second = (await h.call(org, { method: 'POST', url: '/v1/webhook-secrets' })).json()
      .secret;
    expect(second).not.toBe(first.json().secret);
    expect(await activeWebhookSecret(h.ctx.db, h.ctx.secretBox, orgId)).toBe(second);
  });
});

describe('without ARBITER_SECRET_KEY', () => {
  let plain: Harness;
  beforeAll(async () => {
    plain = await startHarness({ ARBITER_SECRET_KEY: '' });
  });
  afterAll(() => plain.close());

  it('keys work but are not revealable: reveal answers 404 saying to rotate', async () => {
    const t = await plain.token({ sub: 'p', org_id: 'plain', org_role: 'admin' });
    const raw = (
      await plain.call(t, { method: 'POST', url: '/v1/keys', payload: { scope: 'secret' } })
    ).json().key;
    expect(await findActiveKey(plain.ctx.db, raw)).toMatchObject({ revoked: false });
    expect((await plain.call(t, { method: 'GET', url: '/v1/keys' })).json()[0].revealable).toBe(
      false,
    );
    const res = await plain.call(t, { method: 'GET', url: '/v1/keys/secret/reveal' });
    expect(res.statusCode).toBe(404);
    expect(res.json().detail).toBe(
      'The active secret key predates raw-key storage; rotate it to get a revealable one',
    );
  });

  it('webhook secret rotation says the encryption key is missing', async () => {
    const t = await plain.token({ sub: 'p', org_id: 'plain', org_role: 'admin' });
    const res = await plain.call(t, { method: 'POST', url: '/v1/webhook-secrets' });
    expect(res.statusCode).toBe(409);
    expect(res.json().type).toBe('/problems/secret-key-not-configured');
  });
});
