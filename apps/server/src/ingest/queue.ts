import type { AcceptedEvent } from './event-schema.ts';

export interface EnqueueRequest {
  orgId: string;
  events: AcceptedEvent[];
  /** The UTC month the events are metered in (YYYY-MM). */
  month: string;
  /** Events the org may be metered this month in all; null when nothing is refused (overage billed or limits off). */
  allowance: number | null;
}

export interface EnqueueResult {
  /** New events, now durably stored (and so queued for aggregation) and metered. */
  queued: string[];
  /** Already accepted earlier (a retry): acknowledged, not queued or metered again. */
  duplicates: string[];
  /** The duplicates whose earlier event says something else: acknowledged, the earlier one stands. */
  conflicts: string[];
  /** New events past the monthly allowance: not queued, not metered. */
  refused: string[];
}

/** A stored event the fold could not fold: set aside with the database's reason. */
export interface QuarantinedEvent {
  orgId: string;
  eventId: string;
  reason: string;
}

export interface DrainResult {
  /** Events folded into the aggregates. */
  events: number;
  /** Events of the stretch set aside instead (each reported once, when it is set aside). */
  quarantined: QuarantinedEvent[];
  /** True when `ifFree` was asked and another fold was running: nothing was done. */
  busy?: boolean;
}

export interface DrainOptions {
  /** Fold only if no other fold is running right now, instead of waiting for it to end. */
  ifFree?: boolean;
}

/**
 * The durable ingest path. `enqueue` returns only once the events survive a crash; storing,
 * metering and de-duplication happen in the same step so a retried event is counted once.
 * `drain` folds queued events into the per-user daily aggregates exactly once.
 */
export interface IngestQueue {
  enqueue(request: EnqueueRequest): Promise<EnqueueResult>;
  /**
   * Folds the next stored events (up to `maxTransactions` acceptances) into the aggregates. A
   * row that cannot be folded is quarantined and passed, never retried: it holds nothing back.
   */
  drain(maxTransactions: number, options?: DrainOptions): Promise<DrainResult>;
  /** Events stored but not yet folded. */
  depth(): Promise<number>;
}
