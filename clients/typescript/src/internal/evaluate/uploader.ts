import { ArbiterError } from '../../errors.ts';
import type { ResultRow, ResultsAnswer } from './api.ts';
import { errorText } from './run-task.ts';

/** Batches queued beyond the one in flight before `add` waits: tasks outrunning uploads pause. */
const QUEUED_BATCHES = 2;

/**
 * Sends result rows in batches, one request at a time, while tasks go on. Duplicates and
 * conflicts are not errors (a resumed run may send a row again). A row the server refuses goes
 * again once as a failed result carrying the server's reason, so the run still accounts for
 * it; a refusal of that one, or a request that fails after its retries, stops the uploads.
 */
export class ResultUploader {
  private buffer: ResultRow[] = [];
  private chain: Promise<void> = Promise.resolve();
  private queued = 0;
  private failure: Error | null = null;
  /** The rows sent again in place of refused ones. */
  private readonly replacements = new WeakSet<ResultRow>();

  constructor(
    private readonly send: (rows: readonly ResultRow[]) => Promise<ResultsAnswer>,
    private readonly batchSize: number,
  ) {}

  /** Throws what stopped the uploads, if anything has. */
  check(): void {
    if (this.failure !== null) throw this.failure;
  }

  async add(row: ResultRow): Promise<void> {
    this.check();
    this.buffer.push(row);
    if (this.buffer.length >= this.batchSize) this.ship();
    if (this.queued > QUEUED_BATCHES) await this.chain;
    this.check();
  }

  /** Sends what is left and waits for every request; throws what stopped the uploads. */
  async drain(): Promise<void> {
    while (this.buffer.length > 0 && this.failure === null) {
      this.ship();
      await this.chain;
    }
    await this.chain;
    this.check();
  }

  private ship(): void {
    const batch = this.buffer.splice(0, this.batchSize);
    if (batch.length === 0) return;
    this.queued++;
    this.chain = this.chain.then(async () => {
      try {
        if (this.failure === null) await this.sendBatch(batch);
      } catch (err) {
        this.failure ??= err instanceof Error ? err : new Error(String(err));
      } finally {
        this.queued--;
      }
    });
  }

  private async sendBatch(batch: readonly ResultRow[]): Promise<void> {
    const answer = await this.send(batch);
    for (const { index, message } of answer.errors) {
      const row = batch[index];
      if (row === undefined) continue;
      if (this.replacements.has(row)) {
        throw new ArbiterError(
          `evaluate: the server refused the result of item ${row.item_id}, variant ${row.variant}, repeat ${row.repeat}: ${message}`,
        );
      }
      const replacement: ResultRow = {
        item_id: row.item_id,
        variant: row.variant,
        repeat: row.repeat,
        error: errorText(new Error(`the server refused this result: ${message}`)),
      };
      this.replacements.add(replacement);
      // Sent with the next batch, or by drain().
      this.buffer.push(replacement);
    }
  }
}
