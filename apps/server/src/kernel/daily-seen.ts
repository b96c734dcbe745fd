import { DAY_MS, startOfUtcDay, utcDay } from './utc-day.ts';

/**
 * Keys seen on the current UTC day, each within a scope and with the value it was seen with,
 * in a bounded memory that forgets everyone when the day turns or when it is full (a key may
 * then count twice): how a process de-duplicates a user's daily exposure or tally without a
 * database read on the call path. Two levels (scope, then key) rather than one joined string:
 * the call path looks up strings it already holds, instead of building and hashing a new one.
 */
export class DailySeen {
  #seen = new Map<string, Map<string, string>>();
  #size = 0;
  #day = '';
  #dayStartsMs = 0;
  #dayEndsMs = 0;

  constructor(private readonly capacity: number) {}

  /**
   * Whether `key` of `scope` is new today at `now`, or was seen with another `value` (it is then
   * remembered with this one); starts over at a new day.
   */
  firstToday(scope: string, key: string, now: Date, value = ''): boolean {
    const ms = now.getTime();
    if (ms >= this.#dayEndsMs || ms < this.#dayStartsMs || this.#size >= this.capacity) {
      this.#seen = new Map();
      this.#size = 0;
      this.#day = utcDay(now);
      this.#dayStartsMs = startOfUtcDay(now).getTime();
      this.#dayEndsMs = this.#dayStartsMs + DAY_MS;
    }
    let keys = this.#seen.get(scope);
    if (keys === undefined) {
      keys = new Map();
      this.#seen.set(scope, keys);
    }
    const before = keys.get(key);
    if (before === value) return false;
    if (before === undefined) this.#size++;
    keys.set(key, value);
    return true;
  }

  /** The UTC day of the last `firstToday` call. */
  get day(): string {
    return this.#day;
  }

  /** Forgets `key` of `scope`, so that the next call with it counts again (its write failed). */
  forget(scope: string, key: string): void {
    if (this.#seen.get(scope)?.delete(key) === true) this.#size--;
  }
}
