import { and, eq, isNull } from 'drizzle-orm';
import type { SecretBox } from '../crypto/secret-box.ts';
import { randomToken } from '../crypto/tokens.ts';
import type { Database } from '../db/connect.ts';
import { experiments, webhookSecrets } from '../db/schema.ts';
import { UUID } from '../schemas/uuid.ts';
import { recordAudit } from './audit.ts';
import { lockOrgCredentials } from './credential-lock.ts';
import type { Caller } from './identity/identity.ts';
import { DomainError } from './outcomes.ts';

export async function webhookSecretStatus(db: Database, orgId: string) {
  const [active] = await db
    .select({ createdAt: webhookSecrets.createdAt })
    .from(webhookSecrets)
    .where(and(eq(webhookSecrets.orgId, orgId), isNull(webhookSecrets.revokedAt)));
  return {
    configured: active !== undefined,
    created_at: active ? active.createdAt.toISOString() : null,
  };
}

/** The new secret is returned once; the previous one is invalid from the same transaction on. */
export async function rotateWebhookSecret(
  db: Database,
  box: SecretBox | null,
  caller: Caller,
  now: Date,
) {
  if (box === null) {
    throw new DomainError(
      'secret-key-not-configured',
      'Set ARBITER_SECRET_KEY on the server: webhook secrets are stored encrypted so signatures can be checked',
    );
  }
  const secret = randomToken('whsec_');
  return db.transaction(async (tx) => {
    // One rotation at a time per org: concurrent ones would break the one-active index.
    await lockOrgCredentials(tx, caller.orgId);
    await tx
      .update(webhookSecrets)
      .set({ revokedAt: now })
      .where(and(eq(webhookSecrets.orgId, caller.orgId), isNull(webhookSecrets.revokedAt)));
    const [row] = await tx
      .insert(webhookSecrets)
      .values({ orgId: caller.orgId, secretCiphertext: box.seal(secret), createdBy: caller.userId })
      .returning();
    await recordAudit(tx, {
      orgId: caller.orgId,
      actorUserId: caller.userId,
      action: 'webhook_secret.rotated',
      targetType: 'webhook_secret',
      targetId: 'business-events',
      details: { secret_id: row!.id },
    });
    return { secret, created_at: row!.createdAt.toISOString() };
  });
}

/** The raw active secret, for verifying a signature; null when none is configured. */
export async function activeWebhookSecret(
  db: Database,
  box: SecretBox | null,
  orgId: string,
): Promise<string | null> {
  if (box === null) return null;
  const [active] = await db
    .select({ sealed: webhookSecrets.secretCiphertext })
    .from(webhookSecrets)
    .where(and(eq(webhookSecrets.orgId, orgId), isNull(webhookSecrets.revokedAt)));
  return active ? box.open(active.sealed) : null;
}

/** The org owning an experiment and its active webhook secret; null when either is missing. */
export async function signingSecretOf(
  db: Database,
  box: SecretBox | null,
  experimentId: string,
): Promise<{ orgId: string; secret: string } | null> {
  const [owner] = UUID.test(experimentId)
    ? await db
        .select({ orgId: experiments.orgId })
        .from(experiments)
        .where(and(eq(experiments.id, experimentId)))
    : [];
  if (!owner) return null;
  const secret = await activeWebhookSecret(db, box, owner.orgId);
  return secret === null ? null : { orgId: owner.orgId, secret };
}
