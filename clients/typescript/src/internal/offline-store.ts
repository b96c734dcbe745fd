import type { ArbiterEvent } from './wire.ts';

/**
 * Where batches go when the API cannot take them, to be replayed later with their original
 * ids and timestamps. Implementations: a file (Node) and IndexedDB (browser). Every method may
 * reject; the pipeline turns a failure into a dropped batch and one log line.
 */
export interface OfflineStore {
  /** Adds events; past the store's capacity the oldest go. Resolves to how many went. */
  append(events: readonly ArbiterEvent[]): Promise<number>;
  /** Up to `limit` of the oldest events, left in the store. */
  peek(limit: number): Promise<ArbiterEvent[]>;
  /** Removes the events with these ids; unknown ids are ignored. */
  remove(eventIds: readonly string[]): Promise<void>;
}
