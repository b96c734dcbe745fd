import type { FastifyBaseLogger } from 'fastify';
import type { IngestQueue } from './queue.ts';

/** Acceptances (transactions) one fold takes at most: bounds the fold's memory after a backlog. */
const ACCEPTANCES_PER_FOLD = 500;
const IDLE_POLL_MS = 250;

/**
 * Folds stored events into the aggregates. Runs in every server process; the queue's lock
 * makes them take turns. `kick()` wakes it when this process enqueued.
 */
export class DrainWorker {
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;

  constructor(
    private readonly queue: IngestQueue,
    private readonly log: Pick<FastifyBaseLogger, 'error'> | null = null,
  ) {}

  /** Drains until nothing stored is left to fold; returns the number of events folded. */
  async drainAll(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.queue.drain(ACCEPTANCES_PER_FOLD);
      if (n === 0) return total;
      total += n;
    }
  }

  kick(): void {
    this.wake?.();
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        try {
          const moved = await this.drainAll();
          if (moved > 0) continue;
        } catch (error) {
          this.log?.error({ err: error }, 'ingest drain failed; retrying');
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
