import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * How long a long piece of CPU work (an import's parse and checks) may run before it hands the
 * event loop back. Other requests wait at most this long plus one unit of work, well under the
 * 50 ms any request may be held up by another tenant's work.
 */
export const TIME_SLICE_MS = 8;

/**
 * Cooperative time slicing for CPU-bound loops on the request thread: call `pause()` between
 * units of work; it yields to the event loop (timers, I/O, other requests) once the slice is
 * used up, and is a cheap clock read otherwise. `setImmediate` (not a microtask) is what lets
 * pending I/O run in between.
 */
export class TimeSlice {
  #started = performance.now();

  constructor(readonly budgetMs: number = TIME_SLICE_MS) {}

  /** The slice is used up: the caller should `await pause()` before the next unit. */
  get due(): boolean {
    return performance.now() - this.#started >= this.budgetMs;
  }

  async pause(): Promise<void> {
    if (!this.due) return;
    await nextTurn();
    this.#started = performance.now();
  }
}
