import type { OfflineStore } from './offline-store.ts';
import type { AsyncContext } from './user-context.ts';

/** What differs between Node and the browser; each entry point builds its own from its options. */
export interface Platform {
  /** Environment variables; the browser has none. */
  env(name: string): string | undefined;
  randomUUID(): string;
  /** A context that follows async work (the `withUser` user, the running evaluation task). */
  asyncContext<T>(): AsyncContext<T>;
  /** Where `evaluate` draws its progress line: stderr when it is a terminal, else null. */
  progressOutput(): ProgressOutput | null;
  /** The store for spilled events, or null when none is configured or possible. */
  offlineStore(apiKey: string): OfflineStore | null;
  /**
   * Calls `flush` when the host is about to go away (Node: beforeExit; browser: the page is
   * hidden, when `urgent` asks for requests that survive the page). Returns the unhook.
   */
  onShutdown(flush: (urgent: boolean) => void): () => void;
}

/** A terminal line `evaluate` redraws. */
export interface ProgressOutput {
  write(text: string): void;
}
