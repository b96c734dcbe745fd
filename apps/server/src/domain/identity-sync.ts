import { and, eq, isNull, type SQL, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Database } from '../db/connect.ts';
import { identityWebhookDeliveries, memberships, orgs, users } from '../db/schema.ts';
import {
  type IdentityChange,
  identityChangeOf,
  type MembershipRecord,
  type OrgRecord,
  type UserRecord,
} from './identity-events.ts';

type Tx = Parameters<Parameters<Database['transaction']>[0]>[0];

export interface IdentityDelivery {
  /** The Svix message id: the same for every retry of one event. */
  svixId: string;
  type: string;
  data: unknown;
  /** When the provider made the event; an older event than the row's last one changes nothing. */
  at: Date;
}

export type DeliveryOutcome = 'applied' | 'ignored' | 'replayed';

/** Out-of-order deliveries: a row takes an event no older than the last one it took. */
function notNewerThan(syncedAt: PgColumn, at: Date): SQL {
  return sql`(${syncedAt} is null or ${syncedAt} <= ${at.toISOString()}::timestamptz)`;
}

async function upsertUser(tx: Tx, user: UserRecord, at: Date): Promise<void> {
  await tx
    .insert(users)
    .values({ ...user, syncedAt: at })
    .onConflictDoUpdate({
      target: users.externalId,
      set: { email: user.email, name: user.name, syncedAt: at, updatedAt: sql`now()` },
      setWhere: notNewerThan(users.syncedAt, at),
    });
}

async function upsertOrg(tx: Tx, org: OrgRecord, at: Date): Promise<void> {
  await tx
    .insert(orgs)
    .values({ ...org, syncedAt: at })
    .onConflictDoUpdate({
      target: orgs.externalId,
      set: { name: org.name, syncedAt: at },
      setWhere: notNewerThan(orgs.syncedAt, at),
    });
}

/** Ends every live membership of a deleted user or org, so no old token brings it back. */
async function endMemberships(tx: Tx, where: SQL, at: Date): Promise<void> {
  await tx
    .update(memberships)
    .set({ deletedAt: at, syncedAt: at })
    .where(and(where, isNull(memberships.deletedAt), notNewerThan(memberships.syncedAt, at)));
}

/** Tombstones a user unknown so far too: a session token of a deleted user is then refused. */
async function deleteUser(tx: Tx, externalId: string, at: Date): Promise<void> {
  const [user] = await tx
    .insert(users)
    .values({ externalId, syncedAt: at, deletedAt: at })
    .onConflictDoUpdate({
      target: users.externalId,
      set: { deletedAt: at, syncedAt: at },
      setWhere: notNewerThan(users.syncedAt, at),
    })
    .returning({ id: users.id });
  if (user !== undefined) await endMemberships(tx, eq(memberships.userId, user.id), at);
}

async function deleteOrg(tx: Tx, externalId: string, at: Date): Promise<void> {
  const [org] = await tx
    .insert(orgs)
    .values({ externalId, syncedAt: at, deletedAt: at })
    .onConflictDoUpdate({
      target: orgs.externalId,
      set: { deletedAt: at, syncedAt: at },
      setWhere: notNewerThan(orgs.syncedAt, at),
    })
    .returning({ id: orgs.id });
  if (org !== undefined) await endMemberships(tx, eq(memberships.orgId, org.id), at);
}

/** The internal id of a user or org, made on first sight (a membership event may come first). */
async function userIdOf(tx: Tx, user: UserRecord): Promise<string> {
  const [row] = await tx
    .insert(users)
    .values({ externalId: user.externalId, email: user.email })
    .onConflictDoUpdate({ target: users.externalId, set: { externalId: user.externalId } })
    .returning({ id: users.id });
  return row!.id;
}

async function orgIdOf(tx: Tx, org: OrgRecord): Promise<string> {
  const [row] = await tx
    .insert(orgs)
    .values({ externalId: org.externalId, name: org.name })
    .onConflictDoUpdate({ target: orgs.externalId, set: { externalId: org.externalId } })
    .returning({ id: orgs.id });
  return row!.id;
}

async function syncMembership(
  tx: Tx,
  membership: MembershipRecord,
  deleted: boolean,
  at: Date,
): Promise<void> {
  const ids = {
    orgId: await orgIdOf(tx, membership.org),
    userId: await userIdOf(tx, membership.user),
  };
  const state = {
    role: membership.role,
    externalId: membership.externalId,
    syncedAt: at,
    deletedAt: deleted ? at : null,
  };
  await tx
    .insert(memberships)
    .values({ ...ids, ...state })
    .onConflictDoUpdate({
      target: [memberships.orgId, memberships.userId],
      set: state,
      setWhere: notNewerThan(memberships.syncedAt, at),
    });
}

function applyChange(tx: Tx, change: IdentityChange, at: Date): Promise<void> {
  if (change.kind === 'membership')
    return syncMembership(tx, change.membership, change.deleted, at);
  if (change.kind === 'user')
    return change.deleted ? deleteUser(tx, change.externalId, at) : upsertUser(tx, change.user, at);
  return change.deleted ? deleteOrg(tx, change.externalId, at) : upsertOrg(tx, change.org, at);
}

/**
 * Applies one verified identity webhook delivery. The Svix id is stored in the same
 * transaction as the change, so a replay or retry is acknowledged and applied once, and a
 * failed application leaves the id free for the provider's retry.
 */
export async function applyIdentityDelivery(
  db: Database,
  delivery: IdentityDelivery,
): Promise<DeliveryOutcome> {
  const change = identityChangeOf(delivery.type, delivery.data);
  return db.transaction(async (tx) => {
    const [fresh] = await tx
      .insert(identityWebhookDeliveries)
      .values({ svixId: delivery.svixId, eventType: delivery.type })
      .onConflictDoNothing()
      .returning({ svixId: identityWebhookDeliveries.svixId });
    if (fresh === undefined) return 'replayed';
    if (change === null) return 'ignored';
    await applyChange(tx, change, delivery.at);
    return 'applied';
  });
}
