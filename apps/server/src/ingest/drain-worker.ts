import type { FastifyBaseLogger } from 'fastify';
import type { IngestQueue } from './queue.ts';

const BATCHES_PER_TRANSACTION = 50;
const IDLE_POLL_MS = 250;

/**
 * Moves queued batches into the event store. Runs in every server process; the queue's
 * locking lets several drain side by side. `kick()` wakes it when this process enqueued.
 */
export class DrainWorker {
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;

  constructor(
    private readonly queue: IngestQueue,
    private readonly log: Pick<FastifyBaseLogger, 'error'> | null = null,
  ) {}

  /** Drains until the queue is empty; returns the number of events moved. */
  async drainAll(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.queue.drain(BATCHES_PER_TRANSACTION);
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
