import { asciiLowercase } from '../../kernel/ascii-lowercase.ts';
export type OrgRole = 'member' | 'admin' | 'owner';

/** What a verified session token tells us about the caller. */
export interface SessionClaims {
  sub: string;
  /** As signed, with only ASCII letters lowercased (a Unicode fold could make another address). */
  email: string | null;
  /** The token's `email_verified`: null when the claim is absent, true only for boolean true. */
  emailVerified?: boolean | null;
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

/**
 * The address a platform-owner check may compare: printable ASCII, ASCII-lowercased. An
 * address with anything else (a Kelvin sign, a fullwidth letter, a control) gets null, so no
 * look-alike ever matches a configured owner.
 */
export function comparableEmail(email: string): string | null {
  return /^[\x21-\x7e]+$/.test(email) ? asciiLowercase(email) : null;
}
