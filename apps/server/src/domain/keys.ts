import { and, eq, isNull, sql } from 'drizzle-orm';
import type { SecretBox } from '../crypto/secret-box.ts';
import { randomToken, sha256Hex } from '../crypto/tokens.ts';
import type { Database } from '../db/connect.ts';
import { apiKeys, orgs } from '../db/schema.ts';
import { recordAudit } from './audit.ts';
import { announceChange } from './change-feed.ts';
import { lockOrgCredentials } from './credential-lock.ts';
import type { Caller } from './identity/identity.ts';
import { DomainError } from './outcomes.ts';

export const KEY_SCOPES = ['publishable', 'secret'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];
export const KEY_PREFIX: Record<KeyScope, string> = { publishable: 'svc_pk_', secret: 'svc_sk_' };

function hint(raw: string): string {
  return `${raw.slice(0, 7)}…${raw.slice(-4)}`;
}

/**
 * Mints the scope's new key; the previous one stops working in the same transaction. Rotations
 * of one org run one after the other (`lockOrgCredentials`), so concurrent ones all succeed.
 */
export async function rotateKey(
  db: Database,
  box: SecretBox | null,
  caller: Caller,
  scope: KeyScope,
  now: Date,
) {
  const raw = randomToken(KEY_PREFIX[scope]);
  return db.transaction(async (tx) => {
    await lockOrgCredentials(tx, caller.orgId);
    await tx
      .update(apiKeys)
      .set({ revokedAt: now })
      .where(
        and(eq(apiKeys.orgId, caller.orgId), eq(apiKeys.scope, scope), isNull(apiKeys.revokedAt)),
      );
    const [row] = await tx
      .insert(apiKeys)
      .values({
        orgId: caller.orgId,
        scope,
        keyHash: sha256Hex(raw),
        keyCiphertext: box?.seal(raw) ?? null,
        keyHint: hint(raw),
        createdBy: caller.userId,
      })
      .returning();
    // Every process drops its cached key lookups when this commits.
    await announceChange(tx, { kind: 'keys' });
    await recordAudit(tx, {
      orgId: caller.orgId,
      actorUserId: caller.userId,
      action: 'key.rotated',
      targetType: 'api_key',
      targetId: scope,
      details: { key_id: row!.id, hint: row!.keyHint, revealable: row!.keyCiphertext !== null },
    });
    return { scope, key: raw, created_at: row!.createdAt.toISOString() };
  });
}

export async function listKeys(db: Database, orgId: string) {
  const found = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.orgId, orgId), isNull(apiKeys.revokedAt)))
    .orderBy(apiKeys.scope);
  return found.map((k) => ({
    scope: k.scope as KeyScope,
    created_at: k.createdAt.toISOString(),
    revealable: k.keyCiphertext !== null,
    hint: k.keyHint,
  }));
}

export async function revealKey(
  db: Database,
  box: SecretBox | null,
  caller: Caller,
  scope: KeyScope,
) {
  const [key] = await db
    .select()
    .from(apiKeys)
    .where(
      and(eq(apiKeys.orgId, caller.orgId), eq(apiKeys.scope, scope), isNull(apiKeys.revokedAt)),
    );
  if (!key)
    throw new DomainError(
      'key-not-revealable',
      `No ${scope} key is active in your org; create one with POST /v1/keys`,
    );
  if (key.keyCiphertext === null || box === null) {
    throw new DomainError(
      'key-not-revealable',
      `The active ${scope} key predates raw-key storage; rotate it to get a revealable one`,
    );
  }
  await recordAudit(db, {
    orgId: caller.orgId,
    actorUserId: caller.userId,
    action: 'key.revealed',
    targetType: 'api_key',
    targetId: scope,
    details: { key_id: key.id, hint: key.keyHint },
  });
  return { scope, key: box.open(key.keyCiphertext), created_at: key.createdAt.toISOString() };
}

export interface ActiveKey {
  orgId: string;
  scope: KeyScope;
}

/** A key as the lookup finds it: rotated away (`revoked`), or its org deleted (`orgDeleted`). */
export type FoundKey = ActiveKey & { revoked: boolean; orgDeleted: boolean };

function prepareKeyLookup(db: Database) {
  return db
    .select({
      orgId: apiKeys.orgId,
      scope: apiKeys.scope,
      revokedAt: apiKeys.revokedAt,
      orgDeletedAt: orgs.deletedAt,
    })
    .from(apiKeys)
    .leftJoin(orgs, eq(orgs.id, apiKeys.orgId))
    .where(eq(apiKeys.keyHash, sql.placeholder('keyHash')))
    .prepare('arbiter_find_active_key');
}

/**
 * The key lookup of each database, built once: every request that stores events looks its key
 * up in the database, and building that query each time took about 5 % of the server's busy
 * time at batches of 100 events (bench/server/RESULTS.md). On a PostgreSQL server it is a named
 * statement, parsed once a connection.
 */
const keyLookups = new WeakMap<Database, ReturnType<typeof prepareKeyLookup>>();

/** The org and scope of the active key whose SHA-256 is `keyHash`, as `findActiveKey`. */
export async function findActiveKeyByHash(db: Database, keyHash: string): Promise<FoundKey | null> {
  let lookup = keyLookups.get(db);
  if (lookup === undefined) {
    lookup = prepareKeyLookup(db);
    keyLookups.set(db, lookup);
  }
  const [key] = await lookup.execute({ keyHash });
  if (!key) return null;
  return {
    orgId: key.orgId,
    scope: key.scope as KeyScope,
    revoked: key.revokedAt !== null,
    orgDeleted: key.orgDeletedAt !== null,
  };
}

/** Whether a looked-up key may still write for `orgId`: known, not rotated away, of that org. */
export function isActiveFor(key: FoundKey | null, orgId: string): boolean {
  return key !== null && !key.revoked && !key.orgDeleted && key.orgId === orgId;
}

/** The org and scope of an active key, or null for an unknown or rotated-away key. */
export function findActiveKey(db: Database, raw: string): Promise<FoundKey | null> {
  return findActiveKeyByHash(db, sha256Hex(raw));
}
