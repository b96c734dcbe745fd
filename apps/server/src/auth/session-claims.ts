export type OrgRole = 'member' | 'admin' | 'owner';

/** What a verified session token tells us about the caller. */
export interface SessionClaims {
  sub: string;
  email: string | null;
  name: string | null;
  orgExternalId: string | null;
  role: OrgRole;
}

const RANK: Record<OrgRole, number> = { member: 0, admin: 1, owner: 2 };

/** Owner includes admin includes member. */
export function roleAtLeast(role: OrgRole, needed: OrgRole): boolean {
  return RANK[role] >= RANK[needed];
}

/** Accepts our spelling and Clerk's (`org:admin`); anything unknown is the least privilege. */
export function parseRole(value: unknown): OrgRole {
  const v = typeof value === 'string' ? value.replace(/^org:/, '') : '';
  return v === 'admin' || v === 'owner' ? v : 'member';
}
