import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Arbiter } from '../../../../clients/typescript/src/index.ts';
import type { ArbiterEvent } from '../../../../clients/typescript/src/internal/wire.ts';

/** Flushes after the last track before a client is given up as unable to deliver. */
const DELIVERY_LOOKS = 300;

/**
 * The TypeScript client as an application runs it against one API process: retries, then the
 * offline store and its replay. Its `fetch` notes every event it sends (the first send of each
 * id is the event; a retry carries the same), so a test can send the same events elsewhere.
 */
export class SendingClient {
  readonly sent = new Map<string, ArbiterEvent>();
  readonly warnings: string[] = [];
  private readonly spillDir = mkdtempSync(join(tmpdir(), 'arbiter-spill-'));
  private readonly client: Arbiter;

  constructor(apiKey: string, baseUrl: string) {
    this.client = new Arbiter({
      apiKey,
      baseUrl,
      offlineStorePath: join(this.spillDir, 'events.ndjson'),
      trackExposures: false,
      pollIntervalMs: 3_600_000,
      flushIntervalMs: 3_600_000,
      batchSize: 250,
      maxAttempts: 4,
      retryBaseDelayMs: 100,
      retryMaxDelayMs: 1_000,
      retryAfterCapMs: 1_000,
      // A 202 waits on the brokers' acknowledgement, longer while a leader moves.
      requestTimeoutMs: 30_000,
      fetch: (input, init) => {
        if (typeof init?.body === 'string' && String(input).endsWith('/v1/events')) {
          for (const e of (JSON.parse(init.body) as { events: ArbiterEvent[] }).events)
            if (!this.sent.has(e.event_id)) this.sent.set(e.event_id, e);
        }
        return fetch(input, init);
      },
      logger: { warn: (m) => this.warnings.push(m), error: (m) => this.warnings.push(m) },
    });
  }

  stats() {
    return this.client.stats();
  }

  /**
   * Tracks `count` events made by `event(i)`, flushing every `chunk`, then flushes until every
   * one was acknowledged (replays included) or the looks run out.
   */
  async deliver(
    count: number,
    chunk: number,
    event: (i: number) => Parameters<Arbiter['track']>,
  ): Promise<void> {
    for (let from = 0; from < count; from += chunk) {
      for (let i = from; i < Math.min(count, from + chunk); i++) this.client.track(...event(i));
      await this.client.flush();
    }
    for (let look = 0; this.client.stats().sent < count; look++) {
      if (look >= DELIVERY_LOOKS)
        throw new Error(`delivered ${this.client.stats().sent} of ${count}: ${this.lastWords()}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
      await this.client.flush();
    }
  }

  lastWords(): string {
    return this.warnings.slice(-5).join('\n');
  }

  async close(): Promise<void> {
    await this.client.close();
    rmSync(this.spillDir, { recursive: true, force: true });
  }
}
