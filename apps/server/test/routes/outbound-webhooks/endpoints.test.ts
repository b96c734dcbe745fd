import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, webhookEndpoints } from '../../../src/db/schema.ts';
import { type Harness, startHarness } from '../../support/harness.ts';

/**
 * The webhook endpoints of an org over HTTP: create, read, change, delete, rotate; who may
 * call; the URLs refused; the per-org limit; the secret shown once and stored sealed; the trail.
 */
let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
let other: Awaited<ReturnType<Harness['org']>>;

beforeAll(async () => {
  // A deployment's default: https to public addresses only.
  h = await startHarness({ ARBITER_WEBHOOKS_ALLOW_PRIVATE: 'false' });
  acme = await h.org('acme_webhooks');
  other = await h.org('other_webhooks');
});
afterAll(() => h.close());

const BASE = '/v1/webhook-endpoints';
const create = (token: string, payload: object) =>
  h.call(token, { method: 'POST', url: BASE, payload });
const get = (token: string, id: string) => h.call(token, { method: 'GET', url: `${BASE}/${id}` });

async function endpoint(payload: object = {}) {
  const res = await create(acme.admin, { url: 'https://hooks.example.com/arbiter', ...payload });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

const auditOf = (targetId: string) =>
  h.ctx.db.select().from(auditLog).where(eq(auditLog.targetId, targetId));

describe('webhook endpoints', () => {
  it('creates one with every type by default and shows its secret once, stored sealed', async () => {
    const res = await create(acme.admin, {
      url: 'https://hooks.example.com/a',
      description: 'ops',
    });
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json();
    expect(res.headers.location).toBe(`${BASE}/${created.id}`);
    expect(created).toMatchObject({
      url: 'https://hooks.example.com/a',
      description: 'ops',
      event_types: [],
      enabled: true,
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(created.secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    const read = (await get(acme.admin, created.id)).json();
    expect(read).not.toHaveProperty('secret');
    const list = (await h.call(acme.admin, { method: 'GET', url: BASE })).json();
    expect(JSON.stringify(list)).not.toContain(created.secret);
    const [row] = await h.ctx.db
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.id, created.id));
    expect(row!.secretCiphertext).not.toContain(created.secret.slice(6));
    expect(h.ctx.secretBox!.open(row!.secretCiphertext)).toBe(created.secret);
    const trail = await auditOf(created.id);
    expect(trail.map((e) => e.action)).toEqual(['webhook_endpoint.created']);
    expect(JSON.stringify(trail)).not.toContain(created.secret);
  });

  it('changes, rotates and deletes, each audited', async () => {
    const { id, secret } = await endpoint();
    const patched = await h.call(acme.admin, {
      method: 'PATCH',
      url: `${BASE}/${id}`,
      payload: { enabled: false, event_types: ['experiment.started'] },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ enabled: false, event_types: ['experiment.started'] });
    const rotated = await h.call(acme.admin, {
      method: 'POST',
      url: `${BASE}/${id}/rotate-secret`,
    });
    expect(rotated.statusCode, rotated.body).toBe(200);
    expect(rotated.json().secret).toMatch(/^whsec_/);
    expect(rotated.json().secret).not.toBe(secret);
    const removed = await h.call(acme.admin, { method: 'DELETE', url: `${BASE}/${id}` });
    expect(removed.statusCode).toBe(204);
    expect((await get(acme.admin, id)).statusCode).toBe(404);
    expect((await auditOf(id)).map((e) => e.action)).toEqual([
      'webhook_endpoint.created',
      'webhook_endpoint.updated',
      'webhook_endpoint.secret_rotated',
      'webhook_endpoint.deleted',
    ]);
  });

  it('refuses a member and hides one org from another', async () => {
    const member = await h.token({ sub: 'member-wh', org_id: 'acme_webhooks', org_role: 'member' });
    const refused = await create(member, { url: 'https://hooks.example.com/m' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().type).toContain('insufficient-role');
    expect((await h.call(member, { method: 'GET', url: BASE })).statusCode).toBe(403);
    const { id } = await endpoint();
    const elsewhere = await get(other.admin, id);
    expect(elsewhere.statusCode).toBe(404);
    expect(elsewhere.json().type).toContain('webhook-endpoint-not-found');
    const patch = await h.call(other.admin, {
      method: 'PATCH',
      url: `${BASE}/${id}`,
      payload: { enabled: false },
    });
    expect(patch.statusCode).toBe(404);
    expect((await get(acme.admin, id)).json().enabled).toBe(true);
  });

  it.each([
    'http://hooks.example.com/x',
    'ftp://hooks.example.com/x',
    'https://user:pw@hooks.example.com/x',
    'not a url',
    'http://127.0.0.1:9/hook',
    'https://127.0.0.1/hook',
    'https://localhost/hook',
    'https://api.localhost/hook',
    'https://[::1]/hook',
    'https://10.1.2.3/hook',
    'https://172.16.0.1/hook',
    'https://192.168.1.10/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://100.100.100.200/hook',
  ])('refuses %s with a 400 and stores nothing', async (url) => {
    const before = (await h.call(other.admin, { method: 'GET', url: BASE })).json().length;
    const res = await create(other.admin, { url });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect((await h.call(other.admin, { method: 'GET', url: BASE })).json().length).toBe(before);
  });

  it('admits https to a public address and refuses an unknown event type', async () => {
    expect((await create(other.admin, { url: 'https://93.184.215.14/hook' })).statusCode).toBe(201);
    const bad = await create(other.admin, { url: 'https://h.example.com', event_types: ['nope'] });
    expect(bad.statusCode).toBe(400);
  });

  it('holds at most 20 per org: the 21st is a 409 problem', async () => {
    const org = await h.org('limit_webhooks');
    for (let i = 0; i < 20; i++) {
      const res = await create(org.admin, { url: `https://hooks.example.com/${i}` });
      expect(res.statusCode, res.body).toBe(201);
    }
    const over = await create(org.admin, { url: 'https://hooks.example.com/21' });
    expect(over.statusCode).toBe(409);
    expect(over.json().type).toContain('webhook-endpoint-limit');
    expect((await h.call(org.admin, { method: 'GET', url: BASE })).json()).toHaveLength(20);
  });
});
