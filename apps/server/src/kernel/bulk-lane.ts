/**
 * One lane for the process's bulk work (imports): at most `width` run at once, and those that
 * wait are let in org by org in turn, each org's own in the order they came. Imports that run
 * side by side hold all their rows in memory at once (longer garbage collections) and send their
 * COPYs to the database at once (its processes take the host's cores from this one's event
 * loop); one at a time, the same work loads the machine less and a neighbour's request waits
 * for less. Admission (the per-org limit, 429) is decided before: the lane only orders.
 */
export class BulkLane {
  #running = 0;
  /** Orgs with work waiting, in turn order (a Map keeps insertion order); each org's FIFO. */
  readonly #waiting = new Map<string, Array<() => void>>();

  constructor(readonly width: number) {}

  /** Waits for this org's turn; the release to call when the work ends (once; later calls do nothing). */
  async enter(orgId: string): Promise<() => void> {
    if (this.#running < this.width && this.#waiting.size === 0) this.#running++;
    else
      await new Promise<void>((admitted) => {
        const line = this.#waiting.get(orgId);
        if (line === undefined) this.#waiting.set(orgId, [admitted]);
        else line.push(admitted);
      });
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#running--;
      this.#admitNext();
    };
  }

  /** Work waiting, for tests and logs. */
  get waiting(): number {
    let count = 0;
    for (const line of this.#waiting.values()) count += line.length;
    return count;
  }

  #admitNext(): void {
    while (this.#running < this.width) {
      const next = this.#waiting.entries().next();
      if (next.done) return;
      const [orgId, line] = next.value;
      const admitted = line.shift() as () => void;
      // The org goes to the back of the turn order if it has more waiting.
      this.#waiting.delete(orgId);
      if (line.length > 0) this.#waiting.set(orgId, line);
      this.#running++;
      admitted();
    }
  }
}

/** Imports one at a time in this process, orgs in turn (bench/server/import-fairness.bench.ts). */
export const IMPORTS_AT_ONCE = 1;

/** The process's lane for imports. */
export const importLane = new BulkLane(IMPORTS_AT_ONCE);
