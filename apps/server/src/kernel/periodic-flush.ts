/**
 * A background write every `intervalMs`, serialised: a flush asked for while one runs waits
 * for it, so two writes of the same buffer never overlap. The timer keeps no process up;
 * `stop()` ends it and writes what is left.
 */
export class PeriodicFlush {
  #timer: ReturnType<typeof setInterval> | null;
  #flushing: Promise<void> = Promise.resolve();

  constructor(
    intervalMs: number,
    private readonly write: () => Promise<void>,
  ) {
    this.#timer = setInterval(() => void this.flush(), intervalMs);
    this.#timer.unref();
  }

  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(() => this.write());
    return this.#flushing;
  }

  async stop(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.flush();
  }
}
