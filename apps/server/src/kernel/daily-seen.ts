import { DAY_MS, startOfUtcDay, utcDay } from './utc-day.ts';

/**
 * Keys seen on the current UTC day, in a bounded memory that forgets everyone when the day
 * turns or when it is full (a key may then count twice): how a process de-duplicates a
 * user's daily exposure or tally without a database read on the call path.
 */
export class DailySeen {
  #seen = new Set<string>();
  #day = '';
  #dayStartsMs = 0;
  #dayEndsMs = 0;

  constructor(private readonly capacity: number) {}

  /** Whether `key` is new today at `now` (it is then remembered); starts over at a new day. */
  firstToday(key: string, now: Date): boolean {
    const ms = now.getTime();
    if (ms >= this.#dayEndsMs || ms < this.#dayStartsMs || this.#seen.size >= this.capacity) {
      this.#seen = new Set();
      this.#day = utcDay(now);
      this.#dayStartsMs = startOfUtcDay(now).getTime();
      this.#dayEndsMs = this.#dayStartsMs + DAY_MS;
    }
    if (this.#seen.has(key)) return false;
    this.#seen.add(key);
    return true;
  }

  /** The UTC day of the last `firstToday` call. */
  get day(): string {
    return this.#day;
  }

  /** Forgets `key`, so that the next call with it counts again (its write failed). */
  forget(key: string): void {
    this.#seen.delete(key);
  }
}
