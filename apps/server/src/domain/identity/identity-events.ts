import { type Static, type TSchema, Type } from 'typebox';
import { Text } from '../../schemas/text.ts';
import { compileBodyValidator } from '../../schemas/validators.ts';
import { DomainError } from '../outcomes.ts';
import { type OrgRole, parseRole } from './session-claims.ts';

/**
 * The identity provider's (Clerk's) webhook payloads, reduced to what Arbiter keeps. Only the
 * fields read are checked; the provider sends many more, and may add some at any time.
 */
const open = { additionalProperties: true };
const ExternalId = Text({ minLength: 1, maxLength: 256 });
const Words = Type.Union([Text({ maxLength: 1024 }), Type.Null()]);

const UserData = Type.Object(
  {
    id: ExternalId,
    first_name: Type.Optional(Words),
    last_name: Type.Optional(Words),
    username: Type.Optional(Words),
    primary_email_address_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    email_addresses: Type.Optional(
      Type.Array(
        Type.Object({ id: Type.String(), email_address: Text({ maxLength: 1024 }) }, open),
      ),
    ),
  },
  open,
);
const DeletedData = Type.Object({ id: ExternalId }, open);
const OrgData = Type.Object({ id: ExternalId, name: Type.Optional(Words) }, open);
const MembershipData = Type.Object(
  {
    id: ExternalId,
    role: Text({ maxLength: 256 }),
    organization: OrgData,
    public_user_data: Type.Object({ user_id: ExternalId, identifier: Type.Optional(Words) }, open),
  },
  open,
);

export interface UserRecord {
  externalId: string;
  email: string | null;
  name: string | null;
}
export interface OrgRecord {
  externalId: string;
  name: string | null;
}
export interface MembershipRecord {
  externalId: string;
  role: OrgRole;
  org: OrgRecord;
  user: UserRecord;
}

export type IdentityChange =
  | { kind: 'user'; deleted: false; user: UserRecord }
  | { kind: 'user'; deleted: true; externalId: string }
  | { kind: 'org'; deleted: false; org: OrgRecord }
  | { kind: 'org'; deleted: true; externalId: string }
  | { kind: 'membership'; deleted: boolean; membership: MembershipRecord };

function userOf(data: Static<typeof UserData>): UserRecord {
  const primary = data.email_addresses?.find((e) => e.id === data.primary_email_address_id);
  const fullName = [data.first_name, data.last_name].filter((part) => part).join(' ');
  return {
    externalId: data.id,
    email: primary?.email_address.toLowerCase() ?? null,
    name: fullName || data.username || null,
  };
}

function membershipOf(data: Static<typeof MembershipData>): MembershipRecord {
  const identifier = data.public_user_data.identifier ?? '';
  return {
    externalId: data.id,
    role: parseRole(data.role),
    org: { externalId: data.organization.id, name: data.organization.name ?? null },
    // The identifier is the member's sign-in handle: an email, or a username or phone number.
    user: {
      externalId: data.public_user_data.user_id,
      email: identifier.includes('@') ? identifier.toLowerCase() : null,
      name: null,
    },
  };
}

interface Reader {
  check: ReturnType<typeof compileBodyValidator>;
  /** Called only with data `check` accepted. */
  change(data: unknown): IdentityChange;
}

function reader<S extends TSchema>(schema: S, change: (data: Static<S>) => IdentityChange): Reader {
  return { check: compileBodyValidator(schema), change: (data) => change(data as Static<S>) };
}

const READERS: Record<string, Reader> = {
  'user.created': reader(UserData, (d) => ({ kind: 'user', deleted: false, user: userOf(d) })),
  'user.updated': reader(UserData, (d) => ({ kind: 'user', deleted: false, user: userOf(d) })),
  'user.deleted': reader(DeletedData, (d) => ({ kind: 'user', deleted: true, externalId: d.id })),
  'organization.created': reader(OrgData, (d) => ({
    kind: 'org',
    deleted: false,
    org: { externalId: d.id, name: d.name ?? null },
  })),
  'organization.updated': reader(OrgData, (d) => ({
    kind: 'org',
    deleted: false,
    org: { externalId: d.id, name: d.name ?? null },
  })),
  'organization.deleted': reader(DeletedData, (d) => ({
    kind: 'org',
    deleted: true,
    externalId: d.id,
  })),
  'organizationMembership.created': reader(MembershipData, (d) => ({
    kind: 'membership',
    deleted: false,
    membership: membershipOf(d),
  })),
  'organizationMembership.updated': reader(MembershipData, (d) => ({
    kind: 'membership',
    deleted: false,
    membership: membershipOf(d),
  })),
  'organizationMembership.deleted': reader(MembershipData, (d) => ({
    kind: 'membership',
    deleted: true,
    membership: membershipOf(d),
  })),
};

/**
 * The change an event makes; null for event types Arbiter does not keep (sessions, emails,
 * invitations...), which are acknowledged and ignored. A kept type with unreadable data is
 * an outcome, and nothing is applied.
 */
export function identityChangeOf(type: string, data: unknown): IdentityChange | null {
  const read = Object.hasOwn(READERS, type) ? READERS[type] : undefined;
  if (read === undefined) return null;
  if (!read.check(data)) {
    const errors = (read.check.errors ?? []).map((e) => {
      const missing = e.keyword === 'required' ? `/${e.params.missingProperty}` : '';
      return { pointer: `#/data${e.instancePath}${missing}`, detail: e.message ?? 'is not valid' };
    });
    throw new DomainError('identity-event-invalid', `The ${type} event's data cannot be read`, {
      errors,
    });
  }
  return read.change(data);
}
