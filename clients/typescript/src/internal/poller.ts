import type { Logger } from '../types.ts';
import type { ConfigStore } from './config-store.ts';
import { backgroundTimeout } from './timers.ts';
import type { Transport } from './transport.ts';

export interface PollerOptions {
  transport: Transport;
  store: ConfigStore;
  intervalMs: number;
  logger: Logger;
  /**
   * Each poll's outcome: `changed` (a new config installed), `unchanged`, or `failed` (the API
   * not reached, or a config that cannot be used). What the OpenFeature providers turn into events.
   */
  onPoll?: (outcome: PollOutcome) => void;
}

export type PollOutcome = 'changed' | 'unchanged' | 'failed';

/**
 * Keeps the ConfigStore fresh: `GET /v1/config` every interval with `If-None-Match`, so an
 * unchanged config costs a 304 and no parsing. A failed poll leaves the last config serving.
 */
export class ConfigPoller {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private inFlight: Promise<void> | null = null;
  private again = false;
  private closed = false;
  /**
   * What the last problem logged was, so that an outage gives one line, not one per poll. A
   * failed request counts by its kind alone: its detail changes within one outage (a reset
   * connection, then refused ones); an unusable config counts by what is wrong with it.
   */
  private lastProblem: string | null = null;
  private started: Promise<void> | null = null;

  constructor(private readonly options: PollerOptions) {}

  /** Loads the config now and polls from then on; resolves after the first load attempt. */
  start(): Promise<void> {
    this.started ??= this.refresh();
    return this.started;
  }

  /**
   * Fetches now. While a fetch runs, a second request is remembered and made right after it:
   * the running one may have left before the change it is asked about.
   */
  refresh(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.inFlight !== null) {
      this.again = true;
      return this.inFlight;
    }
    if (this.timer !== null) clearTimeout(this.timer);
    this.inFlight = this.fetchOnce().finally(() => {
      this.inFlight = null;
      if (this.again) {
        this.again = false;
        void this.refresh();
      } else {
        this.schedule();
      }
    });
    return this.inFlight;
  }

  /** An ingest ack carries the server's config version; a newer one means our copy is stale. */
  noteServerVersion(version: unknown): void {
    if (typeof version !== 'number') return;
    const mine = this.options.store.version;
    if (mine === null || version > mine) void this.refresh();
  }

  close(): void {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = backgroundTimeout(() => void this.refresh(), this.options.intervalMs);
  }

  private async fetchOnce(): Promise<void> {
    const outcome = await this.poll();
    try {
      this.options.onPoll?.(outcome);
    } catch (err) {
      this.options.logger.warn(`config listener failed: ${String(err)}`);
    }
  }

  private async poll(): Promise<PollOutcome> {
    const { transport, store, logger } = this.options;
    const etag = store.etag;
    const result = await transport.request('GET', '/v1/config', {
      headers: etag === null ? {} : { 'if-none-match': etag },
    });
    if (result.kind === 'not-modified') {
      this.recovered();
      return 'unchanged';
    }
    if (result.kind === 'ok') {
      const { fatal, skipped } = store.replace(result.body, result.headers.get('etag'));
      if (fatal !== null) {
        this.problem(`not used: ${fatal}`, `config not used: ${fatal}`);
        return 'failed';
      }
      if (skipped.length > 0) {
        logger.warn(`config: malformed experiments left out: ${skipped.join(', ')}`);
      }
      this.recovered();
      return 'changed';
    }
    if (store.loaded) {
      this.problem(
        'refresh-failed',
        `config refresh failed, serving config version ${store.version}: ${result.detail}`,
      );
    } else {
      this.problem(
        'not-loaded',
        `config could not be loaded, assign() returns null until it is: ${result.detail}`,
      );
    }
    return 'failed';
  }

  private problem(key: string, message: string): void {
    if (key !== this.lastProblem) this.options.logger.warn(message);
    this.lastProblem = key;
  }

  private recovered(): void {
    if (this.lastProblem !== null) this.options.logger.warn('config: API reachable again');
    this.lastProblem = null;
  }
}
