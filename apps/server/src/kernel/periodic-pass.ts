/**
 * A background pass every `intervalMs`, one at a time: a tick that comes while a pass runs is
 * skipped, not queued. The timer keeps no process up; `stop()` ends it and waits for the pass
 * under way. The pass handles its own errors (a rejected pass is logged by its owner).
 */
export class PeriodicPass {
  #timer: ReturnType<typeof setInterval> | null = null;
  #running: Promise<void> | null = null;

  constructor(
    private readonly intervalMs: number,
    private readonly pass: () => Promise<void>,
  ) {}

  start(): void {
    if (this.#timer !== null) return;
    this.#timer = setInterval(() => {
      if (this.#running === null) this.#running = this.pass().finally(() => (this.#running = null));
    }, this.intervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.#running;
  }
}
