import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityWebhookDeliveries, memberships, orgs, users } from '../../../src/db/schema.ts';
import {
  clerkEvent,
  clerkMembership,
  clerkOrganization,
  clerkUser,
  deliverer,
  webhookSecret,
} from '../../support/clerk-webhooks.ts';
import { type Harness, startHarness } from '../../support/harness.ts';

const SECRET = webhookSecret();
let h: Harness;
let deliver: ReturnType<typeof deliverer>;

beforeAll(async () => {
  h = await startHarness({ ARBITER_CLERK_WEBHOOK_SECRET: SECRET });
  deliver = deliverer(h.app, SECRET);
});
afterAll(() => h.close());

/** Event instants step forward from a fixed origin, so each test orders its own events. */
let clock = Date.UTC(2026, 10, 20, 12);
const tick = () => {
  clock += 1000;
  return clock;
};

async function userRow(externalId: string) {
  const [row] = await h.ctx.db.select().from(users).where(eq(users.externalId, externalId));
  return row;
}

async function deliveriesOf(msgId: string) {
  return h.ctx.db
    .select()
    .from(identityWebhookDeliveries)
    .where(eq(identityWebhookDeliveries.svixId, msgId));
}

function whoami(token: string) {
  return h.call(token, { method: 'GET', url: '/v1/whoami' });
}

function membershipEvent(
  type: string,
  m: { id: string; orgId: string; userId: string; role: string },
  at = tick(),
) {
  return clerkEvent(`organizationMembership.${type}`, clerkMembership(m, at), at);
}

describe('signature', () => {
  const event = () =>
    clerkEvent(
      'user.created',
      clerkUser('user_sig', { email: 'Sig@Example.com', first: 'Sig', last: 'Ned' }, clock),
      tick(),
    );

  it('applies a delivery signed with the endpoint secret', async () => {
    const res = await deliver(event(), { msgId: 'msg_sig_ok' });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(await userRow('user_sig')).toMatchObject({
      email: 'sig@example.com',
      name: 'Sig Ned',
      deletedAt: null,
    });
    expect((await userRow('user_sig'))?.syncedAt).toBeInstanceOf(Date);
  });

  it.each([
    ['another secret', { secret: webhookSecret() }, 'no signature in svix-signature matches'],
    [
      'an altered body',
      { tamperedBody: '{"type":"user.created","data":{"id":"user_x"}}' },
      'no signature',
    ],
    [
      'a stale timestamp',
      { sentAt: new Date(Date.now() - 10 * 60_000) },
      'more than 5 minutes old',
    ],
    ['a future timestamp', { sentAt: new Date(Date.now() + 10 * 60_000) }, 'in the future'],
  ])('refuses a delivery signed with %s, applying nothing', async (_name, how, reason) => {
    const before = await h.ctx.db.select().from(users);
    const msgId = `msg_bad_${Math.random().toString(36).slice(2)}`;
    const body = clerkEvent(
      'user.created',
      clerkUser('user_forged', { email: 'f@example.com', first: 'F', last: null }, clock),
      tick(),
    );
    const res = await deliver(body, { msgId, ...how });
    expect(res.statusCode).toBe(401);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({
      type: '/problems/invalid-signature',
      status: 401,
      instance: '/v1/webhooks/clerk',
    });
    expect(res.json().detail).toContain(reason);
    expect(await userRow('user_forged')).toBeUndefined();
    expect(await h.ctx.db.select().from(users)).toHaveLength(before.length);
    expect(await deliveriesOf(msgId)).toEqual([]);
  });

  it('refuses a delivery without the Svix headers', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/v1/webhooks/clerk',
      headers: { 'content-type': 'application/json' },
      payload: event(),
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().detail).toBe('Identity webhook refused: the svix-id header is missing');
  });
});

describe('replay', () => {
  it('acknowledges a redelivered svix-id and applies it once', async () => {
    const created = clerkEvent(
      'user.created',
      clerkUser('user_replay', { email: 'ada@example.com', first: 'Ada', last: null }, clock),
      tick(),
    );
    expect((await deliver(created, { msgId: 'msg_replay' })).statusCode).toBe(204);
    // A session renames the user after the event: applying the event again would undo it.
    const token = await h.token({ sub: 'user_replay', name: 'Ada Lovelace', org_id: 'org_r' });
    expect((await whoami(token)).statusCode).toBe(200);
    expect((await userRow('user_replay'))?.name).toBe('Ada Lovelace');

    const again = await deliver(created, { msgId: 'msg_replay' });
    expect(again.statusCode).toBe(204);
    expect((await userRow('user_replay'))?.name).toBe('Ada Lovelace');
    expect(await deliveriesOf('msg_replay')).toHaveLength(1);
  });
});

describe('users, organizations and memberships', () => {
  it('keeps internal UUIDs beside the provider ids, and sessions resolve to the same rows', async () => {
    const at = tick();
    await deliver(
      clerkEvent('organization.created', clerkOrganization('org_map', 'Map Co', at), at),
      {
        msgId: 'msg_map_org',
      },
    );
    await deliver(
      clerkEvent(
        'user.created',
        clerkUser('user_map', { email: 'map@example.com', first: 'Map', last: 'Per' }, at),
        at,
      ),
      { msgId: 'msg_map_user' },
    );
    await deliver(
      membershipEvent('created', {
        id: 'orgmem_map',
        orgId: 'org_map',
        userId: 'user_map',
        role: 'org:admin',
      }),
      { msgId: 'msg_map_mem' },
    );
    const [org] = await h.ctx.db.select().from(orgs).where(eq(orgs.externalId, 'org_map'));
    const user = await userRow('user_map');
    expect(org).toMatchObject({ name: 'Map Co', deletedAt: null });
    expect(org?.id).toMatch(/^[0-9a-f-]{36}$/);
    const [membership] = await h.ctx.db
      .select()
      .from(memberships)
      .where(eq(memberships.externalId, 'orgmem_map'));
    expect(membership).toMatchObject({ orgId: org?.id, userId: user?.id, role: 'admin' });

    // The token says member; the provider's webhook said admin, and the webhook's word stands.
    const token = await h.token({ sub: 'user_map', org_id: 'org_map', org_role: 'org:member' });
    expect((await whoami(token)).json()).toMatchObject({
      org_id: org?.id,
      user_id: user?.id,
      role: 'admin',
    });
  });

  it('shows a role change in whoami on the next request, with the same token', async () => {
    const m = { id: 'orgmem_role', orgId: 'org_role', userId: 'user_role', role: 'org:member' };
    const token = await h.token({ sub: 'user_role', org_id: 'org_role', org_role: 'org:member' });
    expect((await whoami(token)).json().role).toBe('member');
    const keys = { method: 'POST' as const, url: '/v1/keys', payload: { scope: 'publishable' } };
    expect((await h.call(token, keys)).statusCode).toBe(403);

    await deliver(membershipEvent('updated', { ...m, role: 'org:admin' }), { msgId: 'msg_role_1' });
    expect((await whoami(token)).json().role).toBe('admin');
    expect((await h.call(token, keys)).statusCode).toBe(201);

    await deliver(membershipEvent('updated', m), { msgId: 'msg_role_2' });
    expect((await whoami(token)).json().role).toBe('member');
    expect((await h.call(token, keys)).statusCode).toBe(403);
  });

  it('answers 403 on the next request once the membership is deleted', async () => {
    const m = { id: 'orgmem_gone', orgId: 'org_gone', userId: 'user_gone', role: 'org:admin' };
    const token = await h.token({ sub: 'user_gone', org_id: 'org_gone', org_role: 'org:admin' });
    expect((await whoami(token)).statusCode).toBe(200);
    expect((await h.call(token, { method: 'GET', url: '/v1/experiments' })).statusCode).toBe(200);

    expect((await deliver(membershipEvent('deleted', m), { msgId: 'msg_gone' })).statusCode).toBe(
      204,
    );
    for (const url of ['/v1/whoami', '/v1/experiments', '/v1/keys']) {
      const res = await h.call(token, { method: 'GET', url });
      expect(res.statusCode, url).toBe(403);
      expect(res.json()).toMatchObject({
        type: '/problems/membership-revoked',
        detail: 'You are no longer a member of this organization at the identity provider',
      });
    }
    // A fresh token with the old claims does not bring the membership back.
    const fresh = await h.token({ sub: 'user_gone', org_id: 'org_gone', org_role: 'org:admin' });
    expect((await whoami(fresh)).statusCode).toBe(403);

    // Invited again: access returns.
    await deliver(membershipEvent('created', { ...m, id: 'orgmem_back', role: 'org:member' }), {
      msgId: 'msg_back',
    });
    expect((await whoami(token)).json().role).toBe('member');
  });

  it('answers 401 for a deleted user and 403 for a deleted organization', async () => {
    const user = await h.token({ sub: 'user_del', org_id: 'org_keep', org_role: 'org:admin' });
    const org = await h.token({ sub: 'user_keep', org_id: 'org_del', org_role: 'org:admin' });
    expect((await whoami(user)).statusCode).toBe(200);
    expect((await whoami(org)).statusCode).toBe(200);
    const at = tick();
    await deliver(
      clerkEvent('user.deleted', { object: 'user', id: 'user_del', deleted: true }, at),
      {
        msgId: 'msg_user_del',
      },
    );
    await deliver(
      clerkEvent(
        'organization.deleted',
        { object: 'organization', id: 'org_del', deleted: true },
        at,
      ),
      { msgId: 'msg_org_del' },
    );
    const userRes = await whoami(user);
    expect(userRes.statusCode).toBe(401);
    expect(userRes.json()).toMatchObject({
      type: '/problems/invalid-credential',
      detail: 'This user was deleted at the identity provider',
    });
    const orgRes = await whoami(org);
    expect(orgRes.statusCode).toBe(403);
    expect(orgRes.json().detail).toBe('This organization was deleted at the identity provider');
    // The org's experiments and data stay; only access ends.
    const [row] = await h.ctx.db.select().from(orgs).where(eq(orgs.externalId, 'org_del'));
    expect(row?.deletedAt).toBeInstanceOf(Date);
  });

  it('refuses a session of a user deleted before Arbiter ever saw them', async () => {
    const at = tick();
    await deliver(
      clerkEvent('user.deleted', { object: 'user', id: 'user_never', deleted: true }, at),
      {
        msgId: 'msg_never',
      },
    );
    const token = await h.token({ sub: 'user_never', org_id: 'org_n', org_role: 'org:admin' });
    expect((await whoami(token)).statusCode).toBe(401);
  });

  it('changes nothing for an event older than the last one applied (out of order)', async () => {
    const m = { id: 'orgmem_ooo', orgId: 'org_ooo', userId: 'user_ooo', role: 'org:admin' };
    const early = tick();
    const late = tick();
    await deliver(membershipEvent('deleted', m, late), { msgId: 'msg_ooo_late' });
    const stale = await deliver(membershipEvent('updated', m, early), { msgId: 'msg_ooo_early' });
    expect(stale.statusCode).toBe(204);
    const token = await h.token({ sub: 'user_ooo', org_id: 'org_ooo', org_role: 'org:admin' });
    expect((await whoami(token)).statusCode).toBe(403);
  });

  it('acknowledges and ignores event types it does not keep', async () => {
    const before = await h.ctx.db.select().from(users);
    const res = await deliver(
      clerkEvent('session.created', { object: 'session', id: 'sess_1', user_id: 'user_s' }, tick()),
      { msgId: 'msg_session' },
    );
    expect(res.statusCode).toBe(204);
    expect(await h.ctx.db.select().from(users)).toHaveLength(before.length);
  });

  it('answers 400 for a kept type whose data cannot be read, and stores nothing', async () => {
    const res = await deliver(
      clerkEvent('organizationMembership.created', { id: 'orgmem_bad', role: 'org:admin' }, tick()),
      { msgId: 'msg_unreadable' },
    );
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ type: '/problems/validation-error' });
    expect(res.json().errors.map((e: { pointer: string }) => e.pointer)).toEqual(
      expect.arrayContaining(['#/data/organization', '#/data/public_user_data']),
    );
    // Not recorded as applied: the provider's retry is applied once the data can be read.
    expect(await deliveriesOf('msg_unreadable')).toEqual([]);
  });
});

describe('without ARBITER_CLERK_WEBHOOK_SECRET', () => {
  it('refuses every delivery with 401, saying what to set', async () => {
    const bare = await startHarness();
    try {
      const at = tick();
      const res = await deliverer(bare.app, SECRET)(
        clerkEvent('organization.created', clerkOrganization('org_x', 'X', at), at),
        { msgId: 'msg_unconfigured' },
      );
      expect(res.statusCode).toBe(401);
      expect(res.json().detail).toBe(
        'Identity webhook refused: this server has no ARBITER_CLERK_WEBHOOK_SECRET to verify it with',
      );
    } finally {
      await bare.close();
    }
  });
});
