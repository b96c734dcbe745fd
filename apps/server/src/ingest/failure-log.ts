import type { FastifyBaseLogger } from 'fastify';

/**
 * Logs a failure that repeats on every retry once, when it starts (or changes), and once when
 * it ends, with how many retries it took: a stuck loop retrying every 250 ms writes two lines,
 * not megabytes.
 */
export class FailureLog {
  private failing: { message: string; retries: number } | null = null;

  constructor(
    private readonly log: Pick<FastifyBaseLogger, 'error' | 'info'> | null,
    private readonly what: string,
  ) {}

  failed(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    if (this.failing?.message === message) {
      this.failing.retries++;
      return;
    }
    this.failing = { message, retries: 0 };
    this.log?.error({ err: error }, `${this.what} failed; retrying (logged once until it changes)`);
  }

  succeeded(): void {
    if (this.failing === null) return;
    this.log?.info({ retries: this.failing.retries }, `${this.what} recovered`);
    this.failing = null;
  }
}
