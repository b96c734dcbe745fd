import type { Run } from './service.ts';

/**
 * Scores offline runs: `complete` runs the built-in scorers at once and hands a run with a
 * judge scorer to the judge's queue, which ends it in the background. Runs a gone holder left
 * in `scoring` are taken over by `sweep` (on start, then periodically) or a repeated `complete`.
 */
export interface OfflineScoringQueue {
  complete(orgId: string, runId: string): Promise<Run>;
  /** Takes over the runs left in `scoring` past their lease; how many it took. */
  sweep(): Promise<number>;
  /** Sweeps now and then every so often, until `stop`. */
  start(): void;
  /** Resolves once no scoring is under way in this process (tests and shutdown wait for it). */
  idle(): Promise<void>;
  /** No new work; judge work in progress gives its runs back after its batch. */
  stop(): Promise<void>;
}
