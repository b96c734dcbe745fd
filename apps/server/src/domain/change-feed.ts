import { sql } from 'drizzle-orm';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Database } from '../db/connect.ts';

/**
 * Changes that other processes cache (API keys, an org's client config) are announced on one
 * PostgreSQL channel, so every process on the same database drops its copy at once (a rotated-away
 * key is invalid at once: docs/decisions/operations.md#several-processes). The caches' 1 s revalidation stays as the
 * fallback for a notification missed while a listener reconnects. PGlite is one process: there
 * the announcement has no listener and the in-process invalidation is all there is.
 */
export const CHANGE_CHANNEL = 'arbiter_changes';

export type Change = { kind: 'keys' } | { kind: 'config'; orgId: string };

type Executor = Pick<Database, 'execute'>;

/** Announces `change` when the surrounding transaction commits (NOTIFY is transactional). */
export async function announceChange(tx: Executor, change: Change): Promise<void> {
  const payload = change.kind === 'keys' ? 'keys' : `config:${change.orgId}`;
  await tx.execute(sql`select pg_notify(${CHANGE_CHANNEL}, ${payload})`);
}

export interface ChangeTargets {
  onKeys(): void;
  onConfig(orgId: string): void;
  /** Everything cached may be stale: the connection was lost and notifications with it. */
  onResync(): void;
}

function parse(payload: string | undefined): Change | null {
  if (payload === 'keys') return { kind: 'keys' };
  if (payload?.startsWith('config:')) return { kind: 'config', orgId: payload.slice(7) };
  return null;
}

/**
 * Holds one pooled connection in LISTEN and applies each announced change to this process's
 * caches. A lost connection is replaced after a pause; the caches are flushed whenever the
 * listener (re)connects, since changes made meanwhile were not heard.
 */
export class ChangeListener {
  private client: pg.PoolClient | null = null;
  private stopped = false;
  private retry: NodeJS.Timeout | null = null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly targets: ChangeTargets,
    private readonly log: Logger,
    private readonly retryMs = 1000,
  ) {}

  async start(): Promise<void> {
    if (this.stopped) return;
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      this.log.warn({ err }, 'change listener could not connect; caches revalidate every second');
      this.schedule();
      return;
    }
    client.on('notification', (message) => {
      if (message.channel !== CHANGE_CHANNEL) return;
      const change = parse(message.payload);
      if (change?.kind === 'keys') this.targets.onKeys();
      else if (change?.kind === 'config') this.targets.onConfig(change.orgId);
    });
    client.on('error', (err) => {
      this.log.warn({ err }, 'change listener lost its connection; reconnecting');
      this.drop(err);
      this.schedule();
    });
    try {
      await client.query(`LISTEN ${CHANGE_CHANNEL}`);
    } catch (err) {
      this.client = client;
      this.drop(err as Error);
      this.schedule();
      return;
    }
    if (this.stopped) {
      client.release();
      return;
    }
    this.client = client;
    this.targets.onResync();
  }

  private drop(err?: Error): void {
    const client = this.client;
    this.client = null;
    client?.release(err ?? true);
  }

  private schedule(): void {
    if (this.stopped || this.retry !== null) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.start();
    }, this.retryMs);
    this.retry.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry !== null) clearTimeout(this.retry);
    this.retry = null;
    const client = this.client;
    this.client = null;
    if (client === null) return;
    try {
      await client.query(`UNLISTEN ${CHANGE_CHANNEL}`);
    } catch {
      // the connection is going away anyway
    }
    client.release(true);
  }
}
