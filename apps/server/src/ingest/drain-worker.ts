import type { FastifyBaseLogger } from 'fastify';
import type { IngestQueue } from './queue.ts';

/** Acceptances (transactions) one fold takes at most: bounds the fold's memory after a backlog. */
const ACCEPTANCES_PER_FOLD = 500;
const IDLE_POLL_MS = 250;

/**
 * Folds stored events into the aggregates. Runs in every server process; the queue's lock
 * makes them take turns. `kick()` wakes it when this process enqueued.
 *
 * Logs say each thing once: a quarantined event when it is set aside (it is never retried), a
 * failing fold when it starts failing (not on every retry) and when it recovers.
 */
export class DrainWorker {
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private failing: { message: string; retries: number } | null = null;

  constructor(
    private readonly queue: IngestQueue,
    private readonly log: Pick<FastifyBaseLogger, 'error' | 'warn' | 'info'> | null = null,
  ) {}

  /** Drains until nothing stored is left to fold; returns the number of events folded. */
  async drainAll(): Promise<number> {
    let total = 0;
    for (;;) {
      const { events, quarantined } = await this.queue.drain(ACCEPTANCES_PER_FOLD);
      for (const q of quarantined) {
        this.log?.warn(
          { org_id: q.orgId, event_id: q.eventId, reason: q.reason },
          'ingest fold quarantined an event it cannot fold; other events continue',
        );
      }
      if (events === 0 && quarantined.length === 0) return total;
      total += events;
    }
  }

  kick(): void {
    this.wake?.();
  }

  private reportFailure(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    if (this.failing?.message === message) {
      this.failing.retries++;
      return;
    }
    this.failing = { message, retries: 0 };
    this.log?.error({ err: error }, 'ingest drain failed; retrying (logged once until it changes)');
  }

  private reportSuccess(): void {
    if (this.failing === null) return;
    this.log?.info({ retries: this.failing.retries }, 'ingest drain recovered');
    this.failing = null;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        try {
          const moved = await this.drainAll();
          this.reportSuccess();
          if (moved > 0) continue;
        } catch (error) {
          this.reportFailure(error);
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, IDLE_POLL_MS);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = null;
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.kick();
    await this.loop;
  }
}
