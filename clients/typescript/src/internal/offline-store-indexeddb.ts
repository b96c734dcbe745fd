import type { OfflineStore } from './offline-store.ts';
import type { ArbiterEvent } from './wire.ts';

const STORE = 'events';
const BY_TIME = 'by_timestamp';

/**
 * Spilled events in the browser. Keyed by `event_id`, so writing an event twice keeps one copy;
 * read oldest first through an index on `timestamp` (ISO 8601 in UTC sorts as time does).
 */
export class IndexedDbOfflineStore implements OfflineStore {
  private db: Promise<IDBDatabase> | null = null;

  constructor(
    private readonly factory: IDBFactory,
    private readonly name: string,
    private readonly capacity: number,
  ) {}

  async append(events: readonly ArbiterEvent[]): Promise<number> {
    const db = await this.open();
    const tx = db.transaction(STORE, 'readwrite');
    const store = tx.objectStore(STORE);
    for (const e of events) store.put(e);
    const count = await request(store.count());
    const overflow = Math.max(0, count - this.capacity);
    if (overflow > 0) {
      let left = overflow;
      const cursor = store.index(BY_TIME).openCursor();
      cursor.onsuccess = () => {
        const c = cursor.result;
        if (c === null || left === 0) return;
        c.delete();
        left--;
        c.continue();
      };
    }
    await committed(tx);
    return overflow;
  }

  async peek(limit: number): Promise<ArbiterEvent[]> {
    const db = await this.open();
    const tx = db.transaction(STORE, 'readonly');
    const out: ArbiterEvent[] = [];
    const cursor = tx.objectStore(STORE).index(BY_TIME).openCursor();
    cursor.onsuccess = () => {
      const c = cursor.result;
      if (c === null || out.length >= limit) return;
      out.push(c.value as ArbiterEvent);
      c.continue();
    };
    await committed(tx);
    return out;
  }

  async remove(eventIds: readonly string[]): Promise<void> {
    const db = await this.open();
    const tx = db.transaction(STORE, 'readwrite');
    const store = tx.objectStore(STORE);
    for (const id of eventIds) store.delete(id);
    await committed(tx);
  }

  private open(): Promise<IDBDatabase> {
    if (this.db === null) {
      const opening = this.factory.open(this.name, 1);
      opening.onupgradeneeded = () => {
        const store = opening.result.createObjectStore(STORE, { keyPath: 'event_id' });
        store.createIndex(BY_TIME, 'timestamp');
      };
      this.db = request(opening);
      // A failed open is retried at the next spill instead of being remembered forever.
      this.db.catch(() => {
        this.db = null;
      });
    }
    return this.db;
  }
}

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function committed(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
  });
}
