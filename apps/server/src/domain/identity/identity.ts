import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/connect.ts';
import { memberships, orgs, users } from '../../db/schema.ts';
import { DomainError } from '../outcomes.ts';
import { type OrgRole, parseRole, type SessionClaims } from './session-claims.ts';

export interface Caller {
  userId: string;
  orgId: string;
  role: OrgRole;
  email: string | null;
  name: string | null;
}

interface MemberIds {
  userId: string;
  orgId: string;
}

/** What the database says of one membership, the identity provider's webhook included. */
interface MemberState extends MemberIds {
  role: OrgRole;
  userDeleted: boolean;
  orgDeleted: boolean;
  membershipDeleted: boolean;
}

type ResolvableClaims = SessionClaims & { orgExternalId: string };

/** The stored state of a membership; null when the rows are not there (never seen). */
async function readMembership(db: Database, ids: MemberIds): Promise<MemberState | null> {
  const [row] = await db
    .select({
      role: memberships.role,
      membershipDeletedAt: memberships.deletedAt,
      userDeletedAt: users.deletedAt,
      orgDeletedAt: orgs.deletedAt,
    })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .innerJoin(orgs, eq(orgs.id, memberships.orgId))
    .where(and(eq(memberships.orgId, ids.orgId), eq(memberships.userId, ids.userId)));
  if (row === undefined) return null;
  return {
    ...ids,
    role: parseRole(row.role),
    userDeleted: row.userDeletedAt !== null,
    orgDeleted: row.orgDeletedAt !== null,
    membershipDeleted: row.membershipDeletedAt !== null,
  };
}

/**
 * Upserts user, org and membership as the token describes them. The token's role governs a
 * membership the identity webhook has never synced; once synced, the webhook's word stands
 * (a token lives on for a while after a role change or removal). Deleted rows stay deleted.
 */
function upsertFromClaims(db: Database, claims: ResolvableClaims): Promise<MemberState> {
  return db.transaction(async (tx) => {
    const [user] = await tx
      .insert(users)
      .values({ externalId: claims.sub, email: claims.email, name: claims.name })
      .onConflictDoUpdate({
        target: users.externalId,
        set: { email: claims.email, name: claims.name, updatedAt: sql`now()` },
      })
      .returning({ id: users.id, deletedAt: users.deletedAt });
    const [org] = await tx
      .insert(orgs)
      .values({ externalId: claims.orgExternalId })
      .onConflictDoUpdate({ target: orgs.externalId, set: { externalId: claims.orgExternalId } })
      .returning({ id: orgs.id, deletedAt: orgs.deletedAt });
    const ids = { userId: user!.id, orgId: org!.id };
    const gone = { userDeleted: user!.deletedAt !== null, orgDeleted: org!.deletedAt !== null };
    if (gone.userDeleted || gone.orgDeleted)
      return { ...ids, ...gone, role: claims.role, membershipDeleted: false };
    const [membership] = await tx
      .insert(memberships)
      .values({ ...ids, role: claims.role })
      .onConflictDoUpdate({
        target: [memberships.orgId, memberships.userId],
        set: {
          role: sql`case when ${memberships.syncedAt} is null then excluded.role else ${memberships.role} end`,
        },
      })
      .returning({ role: memberships.role, deletedAt: memberships.deletedAt });
    return {
      ...ids,
      ...gone,
      role: parseRole(membership!.role),
      membershipDeleted: membership!.deletedAt !== null,
    };
  });
}

/** The caller a membership state admits, or the outcome that refuses it. */
function admit(state: MemberState, claims: ResolvableClaims): Caller {
  if (state.userDeleted)
    throw new DomainError('user-deleted', 'This user was deleted at the identity provider');
  if (state.orgDeleted)
    throw new DomainError('org-deleted', 'This organization was deleted at the identity provider');
  if (state.membershipDeleted)
    throw new DomainError(
      'membership-revoked',
      'You are no longer a member of this organization at the identity provider',
    );
  return {
    userId: state.userId,
    orgId: state.orgId,
    role: state.role,
    email: claims.email,
    name: claims.name,
  };
}

/**
 * Resolves a session's claims to the caller, keeping internal UUIDs beside the provider's ids.
 * A small cache keyed by the identity-bearing claims spares the hot path the upsert, never the
 * read of the membership: a role change or removal by the identity webhook shows on the very
 * next request, in every process.
 */
export class IdentityResolver {
  private readonly known = new Map<string, MemberIds>();
  constructor(
    private readonly db: Database,
    private readonly maxEntries = 10_000,
  ) {}

  async resolve(claims: ResolvableClaims): Promise<Caller> {
    const key = JSON.stringify([
      claims.sub,
      claims.orgExternalId,
      claims.role,
      claims.email,
      claims.name,
    ]);
    const ids = this.known.get(key);
    let state = ids === undefined ? null : await readMembership(this.db, ids);
    if (state === null) {
      state = await upsertFromClaims(this.db, claims);
      if (this.known.size >= this.maxEntries) this.known.clear();
      this.known.set(key, { userId: state.userId, orgId: state.orgId });
    }
    return admit(state, claims);
  }
}
