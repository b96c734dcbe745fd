import { and, eq, sql } from 'drizzle-orm';
import type { SecretBox } from '../../crypto/secret-box.ts';
import { type Database, rows } from '../../db/connect.ts';
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from '../../db/schema.ts';
import type { Clock } from '../../kernel/ports.ts';
import { noteAttempt } from './endpoint-health.ts';
import { type Outcome, postEvent } from './post-event.ts';
import { signedHeaders } from './signing.ts';
import { slackBody } from './slack.ts';

/** Waits after attempts 1, 2, …: about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; then failed. */
export const BACKOFF_MS = [5e3, 3e5, 18e5, 72e5, 18e6, 36e6, 36e6];
/** A claimed row is not claimed again for this long: past any attempt's end. */
const CLAIM_LEASE_MS = 60_000;
const BATCH = 20;

export interface DeliveryDeps {
  db: Database;
  secretBox: SecretBox | null;
  clock: Clock;
  /** ARBITER_WEBHOOKS_ALLOW_PRIVATE: http and private addresses allowed (self-hosted, tests). */
  allowPrivate: boolean;
  /** ARBITER_DASHBOARD_URL: Slack messages link under it; null names the page's path. */
  dashboardUrl?: string | null;
}

type Claimed = {
  id: string;
  endpoint_id: string;
  message_id: string;
  body: string;
  attempts: number;
};

/**
 * Takes up to BATCH due rows by moving their next attempt past the lease, in one statement
 * with `skip locked`: a row is claimed by one process, and a process that dies mid-attempt
 * leaves it to be retried once the lease has passed.
 */
async function claimDue(db: Database, now: Date): Promise<Claimed[]> {
  const lease = new Date(now.getTime() + CLAIM_LEASE_MS);
  return rows<Claimed>(
    db,
    sql`update webhook_deliveries set next_attempt_at = ${lease.toISOString()}, attempts = attempts + 1
    where id in (select id from webhook_deliveries where status = 'pending' and next_attempt_at <= ${now.toISOString()}
      order by next_attempt_at limit ${BATCH} for update skip locked)
    returning id, endpoint_id, message_id, body, attempts`,
  );
}

async function secretsOf(deps: DeliveryDeps, endpointId: string, now: Date) {
  const [endpoint] = await deps.db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.id, endpointId));
  if (!endpoint?.enabled) return null;
  if (endpoint.kind === 'slack') return { url: endpoint.url, kind: 'slack' as const, secrets: [] };
  if (deps.secretBox === null) return null;
  const box = deps.secretBox;
  const secrets = [box.open(endpoint.secretCiphertext)];
  const previous = endpoint.previousSecretCiphertext;
  const until = endpoint.previousSecretExpiresAt;
  if (previous !== null && until !== null && until > now) secrets.push(box.open(previous));
  return { url: endpoint.url, kind: 'webhook' as const, secrets };
}

/** What one attempt sends: the signed event, or for Slack its Block Kit message unsigned. */
function requestOf(
  deps: DeliveryDeps,
  target: NonNullable<Awaited<ReturnType<typeof secretsOf>>>,
  row: Claimed,
  now: Date,
) {
  if (target.kind === 'slack') {
    const body = slackBody(row.body, deps.dashboardUrl ?? null);
    return { headers: { 'content-type': 'application/json' }, body };
  }
  return { headers: signedHeaders(target.secrets, row.message_id, now, row.body), body: row.body };
}

/** Logs the attempt as made, whatever became of the row since (a lease passed, a retry). */
async function logAttempt(db: Database, row: Claimed, outcome: Outcome, at: Date, ms: number) {
  await db
    .insert(webhookAttempts)
    .values({
      deliveryId: row.id,
      attempt: row.attempts,
      startedAt: at,
      durationMs: Math.max(0, Math.round(ms)),
      responseStatus: outcome.status,
      responseBody: outcome.body ?? null,
      error: outcome.error,
    })
    .onConflictDoNothing();
}

/** Delivered on a 2xx; otherwise retried after the next wait, or failed when none is left (or `final`). */
async function record(db: Database, row: Claimed, outcome: Outcome, now: Date, final = false) {
  const ok = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
  if (!final) await noteAttempt(db, row.endpoint_id, ok, now);
  const wait = final ? undefined : BACKOFF_MS[row.attempts - 1];
  const status = ok ? 'delivered' : wait === undefined ? 'failed' : 'pending';
  await db
    .update(webhookDeliveries)
    .set({
      status,
      lastResponseStatus: outcome.status,
      lastError: ok ? null : (outcome.error ?? `answered ${outcome.status}`),
      nextAttemptAt: status === 'pending' ? new Date(now.getTime() + wait!) : now,
      finishedAt: status === 'pending' ? null : now,
    })
    .where(and(eq(webhookDeliveries.id, row.id), eq(webhookDeliveries.attempts, row.attempts)));
}

async function attempt(deps: DeliveryDeps, row: Claimed): Promise<void> {
  const now = deps.clock.now();
  const target = await secretsOf(deps, row.endpoint_id, now);
  if (target === null) {
    const outcome = { status: null, error: 'the endpoint is disabled or gone' };
    await logAttempt(deps.db, row, outcome, now, 0);
    await record(deps.db, row, outcome, now, true);
    return;
  }
  const { headers, body } = requestOf(deps, target, row, now);
  const started = performance.now();
  const outcome = await postEvent(target.url, headers, body, { allowPrivate: deps.allowPrivate });
  await logAttempt(deps.db, row, outcome, now, performance.now() - started);
  await record(deps.db, row, outcome, deps.clock.now());
}

/** Makes every due attempt once; returns how many were made. */
export async function deliverDue(deps: DeliveryDeps): Promise<number> {
  const rows = await claimDue(deps.db, deps.clock.now());
  await Promise.all(rows.map((row) => attempt(deps, row)));
  return rows.length;
}
