/**
 * One send at a time, the batches that arrive meanwhile sent together by the next one.
 *
 * @platformatic/kafka's idempotent producer numbers a partition's messages from the sequence
 * its last *acknowledged* send reached, so two sends in flight to one partition carry the same
 * numbers and the broker refuses the second (OUT_OF_ORDER_SEQUENCE_NUMBER). Measured: eight
 * concurrent requests to one API process got 503s from a healthy broker. Sending one at a time
 * keeps the numbering right, and sending what waited together keeps the throughput, as Kafka's
 * own producer batches what arrives while a request is out.
 */
export class ProduceQueue<M> {
  private readonly waiting: Array<{
    messages: M[];
    resolve: () => void;
    reject: (error: unknown) => void;
  }> = [];
  private sending = false;

  constructor(
    /** Sends every message or throws; never called while a call is still running. */
    private readonly sendAll: (messages: M[]) => Promise<void>,
    /** What one send takes at most, by `weigh` (a batch heavier than this goes alone). */
    private readonly maxWeight: number,
    private readonly weigh: (message: M) => number,
  ) {}

  /** Resolves once the send that carried `messages` succeeded; rejects with its error. */
  send(messages: M[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ messages, resolve, reject });
      if (!this.sending) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.sending = true;
    while (this.waiting.length > 0) {
      let weight = 0;
      let take = 0;
      while (take < this.waiting.length) {
        const next = (this.waiting[take]?.messages ?? []).reduce((n, m) => n + this.weigh(m), 0);
        if (take > 0 && weight + next > this.maxWeight) break;
        weight += next;
        take++;
      }
      const group = this.waiting.splice(0, take);
      try {
        await this.sendAll(group.flatMap((entry) => entry.messages));
        for (const entry of group) entry.resolve();
      } catch (error) {
        for (const entry of group) entry.reject(error);
      }
    }
    this.sending = false;
  }
}
