import { sql } from 'drizzle-orm';
import type { OrgRole, SessionClaims } from '../auth/session-claims.ts';
import type { Database } from '../db/connect.ts';
import { memberships, orgs, users } from '../db/schema.ts';

export interface Caller {
  userId: string;
  orgId: string;
  role: OrgRole;
  email: string | null;
  name: string | null;
}

/**
 * Upserts user, org and membership on first sight, keeping internal UUIDs beside the
 * provider's ids. A small cache keyed by the identity-bearing claims spares the hot path the
 * writes; a changed name, email or role misses the cache and is written.
 */
export class IdentityResolver {
  private readonly cache = new Map<string, Caller>();
  constructor(
    private readonly db: Database,
    private readonly maxEntries = 10_000,
  ) {}

  async resolve(claims: SessionClaims & { orgExternalId: string }): Promise<Caller> {
    const key = JSON.stringify([
      claims.sub,
      claims.orgExternalId,
      claims.role,
      claims.email,
      claims.name,
    ]);
    const hit = this.cache.get(key);
    if (hit) return hit;
    const caller = await this.db.transaction(async (tx) => {
      const [user] = await tx
        .insert(users)
        .values({ externalId: claims.sub, email: claims.email, name: claims.name })
        .onConflictDoUpdate({
          target: users.externalId,
          set: { email: claims.email, name: claims.name, updatedAt: sql`now()` },
        })
        .returning({ id: users.id });
      const [org] = await tx
        .insert(orgs)
        .values({ externalId: claims.orgExternalId })
        .onConflictDoUpdate({ target: orgs.externalId, set: { externalId: claims.orgExternalId } })
        .returning({ id: orgs.id });
      await tx
        .insert(memberships)
        .values({ orgId: org!.id, userId: user!.id, role: claims.role })
        .onConflictDoUpdate({
          target: [memberships.orgId, memberships.userId],
          set: { role: claims.role },
        });
      return {
        userId: user!.id,
        orgId: org!.id,
        role: claims.role,
        email: claims.email,
        name: claims.name,
      };
    });
    if (this.cache.size >= this.maxEntries) this.cache.clear();
    this.cache.set(key, caller);
    return caller;
  }
}
