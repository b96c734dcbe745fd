/**
 * How many bulk imports each org runs at once in this process. An import holds a large payload
 * in memory and spends CPU on every row; one org sending many at once would take the process
 * from every other org, so past the limit an import is refused (429) rather than queued: the
 * client retries after a moment, as it does on a rate limit. The count is per process; several
 * processes each allow the limit. OTLP trace exports of an org pass a gate of their own.
 */
export class ImportGate {
  readonly #running = new Map<string, number>();

  constructor(readonly perOrg: number) {}

  /** Admits one more import of `orgId`: the release to call when it ends, or null when full. */
  enter(orgId: string): (() => void) | null {
    const running = this.#running.get(orgId) ?? 0;
    if (running >= this.perOrg) return null;
    this.#running.set(orgId, running + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#running.get(orgId) ?? 1) - 1;
      if (left === 0) this.#running.delete(orgId);
      else this.#running.set(orgId, left);
    };
  }
}
