import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityWebhookDeliveries, users } from '../../../src/db/schema.ts';
import {
  clerkEvent,
  clerkMembership,
  clerkUser,
  deliverer,
  webhookSecret,
} from '../../support/clerk-webhooks.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import { type SecondProcess, secondProcess } from '../../support/second-process.ts';

/**
 * Two server processes on one PostgreSQL database: the identity webhook reaches one, the
 * sessions the other. What the webhook changed holds on the other's very next request, with
 * no notification and no cache to expire; one delivery sent to both at once is applied once.
 */
const SECRET = webhookSecret();
let h: Harness;
let other: SecondProcess;

beforeAll(async () => {
  h = await startHarness({ ARBITER_CLERK_WEBHOOK_SECRET: SECRET });
  other = await secondProcess(h);
});
afterAll(async () => {
  await other.close();
  await h.close();
});

function whoamiOnOther(token: string) {
  return other.app.inject({
    method: 'GET',
    url: '/v1/whoami',
    headers: { authorization: `Bearer ${token}` },
  });
}

describe('identity sync across processes on PostgreSQL', () => {
  it('a role change and a removal applied by one process hold in the other at once', async () => {
    const m = { id: 'orgmem_pp', orgId: 'org_pp', userId: 'user_pp', role: 'org:member' };
    const token = await h.token({ sub: 'user_pp', org_id: 'org_pp', org_role: 'org:member' });
    // The other process has resolved (and cached) this session.
    expect((await whoamiOnOther(token)).json().role).toBe('member');
    expect((await whoamiOnOther(token)).json().role).toBe('member');

    const deliver = deliverer(h.app, SECRET);
    const promoted = Date.now();
    await deliver(
      clerkEvent(
        'organizationMembership.updated',
        clerkMembership({ ...m, role: 'org:admin' }, promoted),
        promoted,
      ),
      { msgId: 'msg_pp_role' },
    );
    expect((await whoamiOnOther(token)).json().role).toBe('admin');

    const removed = promoted + 1000;
    await deliver(
      clerkEvent('organizationMembership.deleted', clerkMembership(m, removed), removed),
      { msgId: 'msg_pp_gone' },
    );
    const res = await whoamiOnOther(token);
    expect(res.statusCode).toBe(403);
    expect(res.json().type).toBe('/problems/membership-revoked');
  });

  it('one delivery reaching both processes at once is acknowledged twice and applied once', async () => {
    const at = Date.now();
    const event = clerkEvent(
      'user.created',
      clerkUser('user_twice', { email: 'twice@example.com', first: 'Two', last: null }, at),
      at,
    );
    const sentAt = new Date();
    const answers = await Promise.all([
      deliverer(h.app, SECRET)(event, { msgId: 'msg_twice', sentAt }),
      deliverer(other.app, SECRET)(event, { msgId: 'msg_twice', sentAt }),
    ]);
    expect(answers.map((a) => a.statusCode)).toEqual([204, 204]);
    const stored = await h.ctx.db
      .select()
      .from(identityWebhookDeliveries)
      .where(eq(identityWebhookDeliveries.svixId, 'msg_twice'));
    expect(stored).toHaveLength(1);
    const rows = await h.ctx.db.select().from(users).where(eq(users.externalId, 'user_twice'));
    expect(rows).toHaveLength(1);
    expect(rows[0]?.email).toBe('twice@example.com');
  });
});
