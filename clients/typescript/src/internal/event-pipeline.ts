import type { Logger } from '../types.ts';
import {
  KEEPALIVE_MAX_BYTES,
  MAX_EVENT_BATCH_BYTES,
  MAX_FLUSH_INTERVAL_MS,
  OFFLINE_REPLAY_WINDOW_MS,
} from './constants.ts';
import type { EventQueue } from './event-queue.ts';
import type { OfflineStore } from './offline-store.ts';
import { backgroundTimeout } from './timers.ts';
import type { Transport } from './transport.ts';
import type { ArbiterEvent } from './wire.ts';

export interface PipelineOptions {
  transport: Transport;
  queue: EventQueue;
  store: OfflineStore | null;
  logger: Logger;
  batchSize: number;
  flushIntervalMs: number;
  /** Called with `config_version` of every ingest ack. */
  onAck: (configVersion: unknown) => void;
  /** Sends what rides along with the events (targeting tallies) once they went through. */
  afterDrain?: (keepalive: boolean) => Promise<void>;
}

type SendOutcome = 'sent' | 'refused' | 'unreachable';

/**
 * Moves events from the queue to the API. One drain runs at a time; each sends what was queued
 * when it began, so a steady stream of `track` calls cannot keep a `flush()` waiting forever.
 * Delivery is at least once: a batch whose answer was lost is sent again with the same ids and
 * the server keeps one copy.
 */
export class EventPipeline {
  readonly counts = { sent: 0, dropped: 0, spilled: 0, replayed: 0, expired: 0 };
  private chain: Promise<void> = Promise.resolve();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private interval: number;
  private soon = false;
  private closed = false;
  /** Whether the store may hold events; starts true because a previous run may have left some. */
  private storeMayHoldEvents = true;
  /** One line per outage, not one per batch. */
  private outage: string | null = null;

  constructor(private readonly options: PipelineOptions) {
    this.interval = options.flushIntervalMs;
  }

  start(): void {
    this.schedule();
  }

  /** Called after an enqueue; a full batch is sent without waiting for the interval. */
  notify(): void {
    if (this.soon || this.closed || this.options.queue.length < this.options.batchSize) return;
    this.soon = true;
    backgroundTimeout(() => {
      this.soon = false;
      void this.flush();
    }, 0);
  }

  /** Resolves once everything queued before the call was sent, spilled or dropped. Never rejects. */
  flush(options: { keepalive?: boolean } = {}): Promise<void> {
    const run = this.chain.then(() => this.drain(options.keepalive === true));
    this.chain = run.catch((err) => this.options.logger.error(`flush failed: ${String(err)}`));
    return this.chain;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = backgroundTimeout(() => {
      void this.flush().then(() => this.schedule());
    }, this.interval);
  }

  private async drain(keepalive: boolean): Promise<void> {
    const { queue, batchSize } = this.options;
    let left = queue.length;
    let reachable = true;
    let detail = '';
    while (left > 0) {
      const batch = queue.take(Math.min(batchSize, left));
      left -= batch.length;
      // Once the API failed in this drain, the rest goes straight to the store: retrying each
      // batch against a server that is down only delays the shutdown of the host.
      if (reachable) {
        const outcome = await this.send(batch, keepalive);
        if (outcome.kind !== 'unreachable') continue;
        reachable = false;
        detail = outcome.detail;
      }
      await this.spill(batch, detail);
    }
    if (reachable && this.options.store !== null && this.storeMayHoldEvents) {
      reachable = await this.replay(this.options.store);
    }
    // An API that just failed the events is not tried again for the tallies: they wait.
    if (reachable && this.options.afterDrain !== undefined)
      await this.options.afterDrain(keepalive);
    // The interval backs off while the API is down, and snaps back once it answers.
    this.interval = reachable
      ? this.options.flushIntervalMs
      : Math.min(this.interval * 2, Math.max(MAX_FLUSH_INTERVAL_MS, this.options.flushIntervalMs));
    if (reachable && this.outage !== null) {
      this.options.logger.warn('events: API reachable again');
      this.outage = null;
    }
  }

  private async send(
    batch: ArbiterEvent[],
    keepalive = false,
  ): Promise<{ kind: SendOutcome; detail: string }> {
    const body = JSON.stringify({ events: batch });
    const bytes = byteLength(body);
    if (bytes > MAX_EVENT_BATCH_BYTES && batch.length > 1) {
      const half = Math.ceil(batch.length / 2);
      const first = await this.send(batch.slice(0, half), keepalive);
      if (first.kind === 'unreachable') return first;
      return this.send(batch.slice(half), keepalive);
    }
    const result = await this.options.transport.request('POST', '/v1/events', {
      body,
      keepalive: keepalive && bytes <= KEEPALIVE_MAX_BYTES,
    });
    if (result.kind === 'unreachable') return { kind: 'unreachable', detail: result.detail };
    if (result.kind === 'ok') {
      this.counts.sent += batch.length;
      this.readAck(result.body, batch.length);
      return { kind: 'sent', detail: '' };
    }
    const detail = result.kind === 'refused' ? result.detail : 'unexpected 304';
    this.counts.dropped += batch.length;
    this.options.logger.warn(`dropped ${batch.length} events: the API refused them (${detail})`);
    return { kind: 'refused', detail };
  }

  private readAck(body: unknown, size: number): void {
    if (typeof body !== 'object' || body === null) return;
    const ack = body as { config_version?: unknown; rejected?: unknown };
    if (Array.isArray(ack.rejected) && ack.rejected.length > 0) {
      const first = ack.rejected[0] as { detail?: unknown };
      this.options.logger.warn(
        `${ack.rejected.length} of ${size} events rejected by the API, first: ${String(first?.detail)}`,
      );
    }
    this.options.onAck(ack.config_version);
  }

  private async spill(batch: ArbiterEvent[], reason: string): Promise<void> {
    const { store, logger } = this.options;
    if (store === null) {
      this.counts.dropped += batch.length;
      logger.warn(
        `dropped ${batch.length} events, API unreachable and no offline store: ${reason}`,
      );
      return;
    }
    try {
      const overflow = await store.append(batch);
      this.storeMayHoldEvents = true;
      this.counts.spilled += batch.length;
      if (overflow > 0) {
        this.counts.dropped += overflow;
        logger.warn(`offline store full: dropped its ${overflow} oldest events`);
      }
      if (this.outage === null) {
        logger.warn(`API unreachable, events kept in the offline store for replay: ${reason}`);
      }
      this.outage = reason;
    } catch (err) {
      this.counts.dropped += batch.length;
      logger.warn(`dropped ${batch.length} events, the offline store failed: ${String(err)}`);
    }
  }

  /** Sends spilled events, oldest first; false when the API failed again. */
  private async replay(store: OfflineStore): Promise<boolean> {
    const { batchSize, logger } = this.options;
    try {
      for (;;) {
        const events = await store.peek(batchSize);
        if (events.length === 0) {
          this.storeMayHoldEvents = false;
          return true;
        }
        const cutoff = Date.now() - OFFLINE_REPLAY_WINDOW_MS;
        const stale = events.filter((e) => !(Date.parse(e.timestamp) >= cutoff));
        const fresh = events.filter((e) => Date.parse(e.timestamp) >= cutoff);
        if (stale.length > 0) {
          await store.remove(stale.map((e) => e.event_id));
          this.counts.expired += stale.length;
          logger.warn(`discarded ${stale.length} spilled events older than the 24 h replay window`);
        }
        if (fresh.length === 0) continue;
        const outcome = await this.send(fresh);
        if (outcome.kind === 'unreachable') return false;
        await store.remove(fresh.map((e) => e.event_id));
        if (outcome.kind === 'sent') this.counts.replayed += fresh.length;
      }
    } catch (err) {
      // The store could not be read or cleaned: stop here rather than resend the same events.
      logger.warn(`offline store replay stopped: ${String(err)}`);
      return true;
    }
  }
}

/** Exact UTF-8 size, or a lower bound when even the worst case fits under every limit. */
function byteLength(text: string): number {
  // A UTF-16 unit is at most 3 UTF-8 bytes, so short bodies need no count.
  if (text.length * 3 <= KEEPALIVE_MAX_BYTES) return text.length;
  return new TextEncoder().encode(text).length;
}
