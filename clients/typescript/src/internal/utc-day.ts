import { backgroundTimeout } from './timers.ts';

export const DAY_MS = 86_400_000;
/**
 * Longest a new UTC day may go unnoticed. Timers of a suspended host or a hidden tab run late,
 * so the clock is read again at least this often, not only at midnight.
 */
const RECHECK_MS = 60_000;

/** Today's UTC day (days since the epoch), from the clock. */
export function utcDayNow(): number {
  return Math.floor(Date.now() / DAY_MS);
}

/**
 * Today's UTC day (days since the epoch), kept in a field by a background timer at each
 * midnight, so that `assign` compares two numbers instead of reading the clock (`Date.now()`
 * costs about 40 ns, as much as the rest of an already-exposed user's call).
 */
export class UtcDay {
  current = 0;
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor() {
    this.#tick();
  }

  close(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  readonly #tick = (): void => {
    const now = Date.now();
    this.current = Math.floor(now / DAY_MS);
    // One millisecond past midnight: a timer may fire a little early by the wall clock.
    const untilMidnight = (this.current + 1) * DAY_MS - now + 1;
    this.#timer = backgroundTimeout(this.#tick, Math.min(RECHECK_MS, untilMidnight));
  };
}
