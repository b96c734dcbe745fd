import { performance } from 'node:perf_hooks';

/**
 * How long a long piece of CPU work (an import's parse and checks) may run before it hands the
 * event loop back. Other requests wait at most this long plus one unit of work, well under the
 * 50 ms any request may be held up by another tenant's work. On a quiet host a neighbour's
 * assign p99 under four imports was 77 ms at 8 ms, 45–60 ms at 4 ms. On a host loaded by other
 * work every unit's wall time stretches with the run queue, so a shorter one counts: at 2 ms
 * (with 250-row COPYs) the p99 under four 2 MB imports was 112–152 ms against 154–270 ms at
 * 4 ms, the imports no slower (bench/server/import-fairness.md).
 */
export const TIME_SLICE_MS = 2;

/** Slices that paused, first come first served. */
const waiting: Array<() => void> = [];
let turnScheduled = false;

/**
 * Resumes the longest-waiting slice, one per turn of the event loop. Were every paused slice
 * resumed in the same turn, four imports would hold the loop for four slices between two
 * chances of a neighbour's request; in line, the neighbour waits for one slice at most.
 */
function scheduleTurn(): void {
  turnScheduled = true;
  // An immediate set from an immediate runs in the next turn, after that turn's I/O.
  setImmediate(() => {
    turnScheduled = false;
    waiting.shift()?.();
    if (waiting.length > 0) scheduleTurn();
  });
}

function nextTurnInLine(): Promise<void> {
  return new Promise((resume) => {
    waiting.push(resume);
    if (!turnScheduled) scheduleTurn();
  });
}

/**
 * Cooperative time slicing for CPU-bound loops on the request thread: call `pause()` between
 * units of work; it yields to the event loop (timers, I/O, other requests) once the slice is
 * used up, and is a cheap clock read otherwise. `setImmediate` (not a microtask) is what lets
 * pending I/O run in between, and all slices of the process share one line, so the loop runs
 * one of them per turn however many imports are under way.
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
    await nextTurnInLine();
    this.#started = performance.now();
  }
}
