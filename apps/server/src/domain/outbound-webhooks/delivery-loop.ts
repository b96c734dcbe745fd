import type { Logger } from 'pino';
import { PeriodicPass } from '../../kernel/periodic-pass.ts';
import { type DeliveryDeps, deliverDue } from './delivery-worker.ts';

/** How often a serving process looks for due deliveries. */
export const POLL_INTERVAL_MS = 2_000;

/**
 * The outbound webhook worker of one process: every POLL_INTERVAL_MS it makes the due
 * attempts, off the request path. Any number of processes may run it; the claim in
 * `deliverDue` gives each attempt to one.
 */
export class WebhookDelivery {
  private readonly loop = new PeriodicPass(POLL_INTERVAL_MS, () => this.drain());

  constructor(
    private readonly deps: DeliveryDeps,
    private readonly log: Pick<Logger, 'warn'>,
  ) {}

  start(): void {
    this.loop.start();
  }

  /** Makes every due attempt now, batch after batch, until none is due (tests call it). */
  async drain(): Promise<void> {
    try {
      while ((await deliverDue(this.deps)) > 0) {}
    } catch (err) {
      this.log.warn({ err }, 'outbound webhook delivery failed; retried at the next poll');
    }
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
