import { randomBytes } from 'node:crypto';
import { and, asc, count, eq } from 'drizzle-orm';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Database } from '../../db/connect.ts';
import { webhookEndpoints } from '../../db/schema.ts';
import { UUID } from '../../schemas/uuid.ts';
import { recordAudit } from '../audit.ts';
import { lockOrgCredentials } from '../credential-lock.ts';
import type { Caller } from '../identity/identity.ts';
import { DomainError } from '../outcomes.ts';
import { healthReset } from './endpoint-health.ts';
import type { EndpointInput, EndpointPatch } from './endpoint-schema.ts';
import { MAX_ENDPOINTS_PER_ORG, ROTATION_OVERLAP_MS } from './event-types.ts';
import { queueFor } from './outbox.ts';
import { checkUrlOfKind } from './url-policy.ts';

type Row = typeof webhookEndpoints.$inferSelect;

/** `whsec_` + base64 of 32 random bytes, the Standard Webhooks secret form. */
export const newSigningSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

export const present = (row: Row) => ({
  id: row.id,
  url: row.url,
  kind: row.kind as 'webhook' | 'slack',
  event_types: row.eventTypes,
  description: row.description,
  enabled: row.enabled,
  disabled_reason: row.disabledReason,
  failing_since: row.failingSince?.toISOString() ?? null,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

function boxOf(box: SecretBox | null): SecretBox {
  if (box === null) {
    throw new DomainError(
      'secret-key-not-configured',
      'Set ARBITER_SECRET_KEY on the server: webhook signing secrets are stored encrypted',
    );
  }
  return box;
}

const notFound = (id: string) =>
  new DomainError('webhook-endpoint-not-found', `No webhook endpoint ${id} in your org`);

const audit = (
  tx: Pick<Database, 'insert'>,
  caller: Caller,
  action: 'created' | 'updated' | 'deleted' | 'secret_rotated',
  id: string,
  details: Record<string, unknown> = {},
) =>
  recordAudit(tx, {
    orgId: caller.orgId,
    actorUserId: caller.userId,
    action: `webhook_endpoint.${action}`,
    targetType: 'webhook_endpoint',
    targetId: id,
    details,
  });

/** Creates an endpoint; its secret is answered here and never again. */
export async function createEndpoint(
  db: Database,
  box: SecretBox | null,
  caller: Caller,
  input: EndpointInput,
  now: Date,
  allowPrivate: boolean,
) {
  const sealer = boxOf(box);
  const kind = input.kind ?? 'webhook';
  const url = checkUrlOfKind(kind, input.url, allowPrivate);
  const secret = newSigningSecret();
  return db.transaction(async (tx) => {
    // One creation at a time per org, so two at once cannot pass the limit together.
    await lockOrgCredentials(tx, caller.orgId);
    const [held] = await tx
      .select({ n: count() })
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.orgId, caller.orgId));
    if ((held?.n ?? 0) >= MAX_ENDPOINTS_PER_ORG) {
      throw new DomainError(
        'webhook-endpoint-limit',
        `An org has at most ${MAX_ENDPOINTS_PER_ORG} webhook endpoints; delete one first`,
      );
    }
    const [row] = await tx
      .insert(webhookEndpoints)
      .values({
        orgId: caller.orgId,
        url,
        kind,
        eventTypes: input.event_types ?? [],
        description: input.description ?? '',
        enabled: input.enabled ?? true,
        secretCiphertext: sealer.seal(secret),
        createdBy: caller.userId,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await audit(tx, caller, 'created', row!.id, {
      url,
      kind,
      event_types: row!.eventTypes,
      enabled: row!.enabled,
    });
    return { ...present(row!), secret };
  });
}

export async function listEndpoints(db: Database, orgId: string) {
  const rows = await db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.orgId, orgId))
    .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
  return rows.map(present);
}

async function loadRow(db: Pick<Database, 'select'>, orgId: string, id: string): Promise<Row> {
  if (!UUID.test(id)) throw notFound(id);
  const [row] = await db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.orgId, orgId), eq(webhookEndpoints.id, id)));
  if (!row) throw notFound(id);
  return row;
}

export const getEndpoint = async (db: Database, orgId: string, id: string) =>
  present(await loadRow(db, orgId, id));

export async function updateEndpoint(
  db: Database,
  caller: Caller,
  id: string,
  patch: EndpointPatch,
  now: Date,
  allowPrivate: boolean,
) {
  return db.transaction(async (tx) => {
    const held = await loadRow(tx, caller.orgId, id);
    const url =
      patch.url === undefined ? undefined : checkUrlOfKind(held.kind, patch.url, allowPrivate);
    const [row] = await tx
      .update(webhookEndpoints)
      .set({
        url,
        eventTypes: patch.event_types,
        description: patch.description,
        enabled: patch.enabled,
        ...(patch.enabled === true ? healthReset : {}),
        updatedAt: now,
      })
      .where(eq(webhookEndpoints.id, id))
      .returning();
    await audit(tx, caller, 'updated', id, { ...patch, ...(url === undefined ? {} : { url }) });
    return present(row!);
  });
}

export async function deleteEndpoint(db: Database, caller: Caller, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    const row = await loadRow(tx, caller.orgId, id);
    await tx.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id));
    await audit(tx, caller, 'deleted', id, { url: row.url });
  });
}

/** A new secret, answered once; the previous one also signs for ROTATION_OVERLAP_MS. */
export async function rotateEndpointSecret(
  db: Database,
  box: SecretBox | null,
  caller: Caller,
  id: string,
  now: Date,
) {
  const sealer = boxOf(box);
  const secret = newSigningSecret();
  const until = new Date(now.getTime() + ROTATION_OVERLAP_MS);
  return db.transaction(async (tx) => {
    const row = await loadRow(tx, caller.orgId, id);
    await tx
      .update(webhookEndpoints)
      .set({
        secretCiphertext: sealer.seal(secret),
        previousSecretCiphertext: row.secretCiphertext,
        previousSecretExpiresAt: until,
        updatedAt: now,
      })
      .where(eq(webhookEndpoints.id, id));
    await audit(tx, caller, 'secret_rotated', id, { previous_valid_until: until.toISOString() });
    return { secret, previous_valid_until: until.toISOString() };
  });
}

/**
 * Queues a `webhook_endpoint.test` event for this endpoint alone, whatever types it wants;
 * returns the event's id. A disabled endpoint's test is recorded failed, never sent.
 */
export async function sendTestEvent(db: Database, caller: Caller, id: string, now: Date) {
  await loadRow(db, caller.orgId, id);
  const data = { endpoint_id: id, message: 'A test event from Arbiter' };
  const messageId = await queueFor(
    db,
    caller.orgId,
    [id],
    { type: 'webhook_endpoint.test', data },
    now,
  );
  return { id: messageId };
}
