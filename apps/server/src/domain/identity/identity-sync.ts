import { and, eq, isNull, type SQL, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Database, Transaction as Tx } from '../../db/connect.ts';
import { identityWebhookDeliveries, memberships, orgs, users } from '../../db/schema.ts';
import { revokeOrgCredentials } from '../revoke-org-credentials.ts';
import {
  type IdentityChange,
  identityChangeOf,
  type MembershipRecord,
  type OrgRecord,
  type UserRecord,
} from './identity-events.ts';

export interface IdentityDelivery {
  /** The Svix message id: the same for every retry of one event. */
  svixId: string;
  type: string;
  data: unknown;
  /** When the provider made the event; an older event than the row's last one changes nothing. */
  at: Date;
  /** When this server took it: a deleted org's credentials are revoked as of then. */
  receivedAt: Date;
}

export type DeliveryOutcome = 'applied' | 'ignored' | 'replayed';

/** Out-of-order deliveries: a row takes an event no older than the last one it took. */
function notNewerThan(syncedAt: PgColumn, at: Date): SQL {
  return sql`(${syncedAt} is null or ${syncedAt} <= ${at.toISOString()}::timestamptz)`;
}

/** Writes what the provider says of a user or org, unless it already heard something newer. */
async function upsertSynced(
  tx: Tx,
  table: typeof users | typeof orgs,
  row: UserRecord | OrgRecord,
  at: Date,
): Promise<void> {
  const { externalId, ...fields } = row;
  await tx
    .insert(table)
    .values({ ...row, syncedAt: at })
    .onConflictDoUpdate({
      target: table.externalId,
      set: { ...fields, syncedAt: at, ...(table === users ? { updatedAt: sql`now()` } : {}) },
      setWhere: notNewerThan(table.syncedAt, at),
    });
}

/** Ends every live membership of a deleted user or org, so no old token brings it back. */
async function endMemberships(tx: Tx, where: SQL, at: Date): Promise<void> {
  await tx
    .update(memberships)
    .set({ deletedAt: at, syncedAt: at })
    .where(and(where, isNull(memberships.deletedAt), notNewerThan(memberships.syncedAt, at)));
}

/**
 * Marks a user or org deleted, one unknown so far too (a session token naming it is then
 * refused), and ends its memberships; returns nothing when a newer event came first.
 */
async function tombstone(
  tx: Tx,
  table: typeof users | typeof orgs,
  externalId: string,
  at: Date,
): Promise<string | undefined> {
  const [row] = await tx
    .insert(table)
    .values({ externalId, syncedAt: at, deletedAt: at })
    .onConflictDoUpdate({
      target: table.externalId,
      set: { deletedAt: at, syncedAt: at },
      setWhere: notNewerThan(table.syncedAt, at),
    })
    .returning({ id: table.id });
  return row?.id;
}

async function deleteUser(tx: Tx, externalId: string, at: Date): Promise<void> {
  const id = await tombstone(tx, users, externalId, at);
  if (id !== undefined) await endMemberships(tx, eq(memberships.userId, id), at);
}

/** A deleted org loses its members and every credential: no key or secret of it works on. */
async function deleteOrg(tx: Tx, externalId: string, at: Date, now: Date): Promise<void> {
  const id = await tombstone(tx, orgs, externalId, at);
  if (id === undefined) return;
  await endMemberships(tx, eq(memberships.orgId, id), at);
  await revokeOrgCredentials(tx, id, now);
}

/**
 * The internal id of a user or org, made on first sight (a membership event may come first);
 * an existing row is left as it is.
 */
async function idOf(
  tx: Tx,
  table: typeof users | typeof orgs,
  row: { externalId: string; email?: string | null; name?: string | null },
): Promise<string> {
  const [found] = await tx
    .insert(table)
    .values(row)
    .onConflictDoUpdate({ target: table.externalId, set: { externalId: row.externalId } })
    .returning({ id: table.id });
  return found!.id;
}

async function syncMembership(
  tx: Tx,
  membership: MembershipRecord,
  deleted: boolean,
  at: Date,
): Promise<void> {
  const { org, user } = membership;
  const ids = {
    orgId: await idOf(tx, orgs, { externalId: org.externalId, name: org.name }),
    userId: await idOf(tx, users, { externalId: user.externalId, email: user.email }),
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

function applyChange(tx: Tx, change: IdentityChange, at: Date, now: Date): Promise<void> {
  if (change.kind === 'membership')
    return syncMembership(tx, change.membership, change.deleted, at);
  if (change.kind === 'user')
    return change.deleted
      ? deleteUser(tx, change.externalId, at)
      : upsertSynced(tx, users, change.user, at);
  return change.deleted
    ? deleteOrg(tx, change.externalId, at, now)
    : upsertSynced(tx, orgs, change.org, at);
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
    await applyChange(tx, change, delivery.at, delivery.receivedAt);
    return 'applied';
  });
}
