import type { AcceptedEvent } from './event-schema.ts';

export interface AppendRequest {
  orgId: string;
  events: AcceptedEvent[];
  /** The UTC month the events are metered in (YYYY-MM). */
  month: string;
  /** Events the org may be metered this month in all; null when nothing is refused (overage billed or limits off). */
  allowance: number | null;
  /**
   * The SHA-256 of the API key that sent the events, when its route admitted it from the key
   * cache: the events are stored only while that key is active, or `InactiveKeyError` is thrown
   * and nothing is stored. Only a log with `checksKeysInWrite` is given it.
   */
  keyHash?: string;
  /**
   * The plan's monthly event allowance (enforced or not) and the acceptance's instant: the
   * write queues `usage.threshold` when the month reaches 80 % or 100 % of it. Absent: none.
   */
  usage?: UsageNotice;
}

export interface UsageNotice {
  allowance: number;
  now: Date;
}

/** The sending key was rotated away or its org deleted before the write: nothing was stored. */
export class InactiveKeyError extends Error {
  constructor() {
    super('the API key of this write is no longer active');
    this.name = 'InactiveKeyError';
  }
}

export interface AppendResult {
  /** New events, now durably in the log (and so waiting for the fold) and metered. */
  appended: string[];
  /** Already accepted earlier (a retry): acknowledged, not appended or metered again. */
  duplicates: string[];
  /** The duplicates whose earlier event says something else: acknowledged, the earlier one stands. */
  conflicts: string[];
  /** New events past the monthly allowance: not appended, not metered. */
  refused: string[];
}

/** A stored event the fold could not fold: set aside with the database's reason. */
export interface QuarantinedEvent {
  orgId: string;
  eventId: string;
  /** The event's type as stored (null when the row has none to read). */
  type: string | null;
  reason: string;
}

export interface FoldResult {
  /** Events folded into the aggregates. */
  events: number;
  /** Events of the stretch set aside instead (each reported once, when it is set aside). */
  quarantined: QuarantinedEvent[];
  /** True when `ifFree` was asked and another fold was running: nothing was done. */
  busy?: boolean;
  /**
   * True when the fold took as much as one fold may (its span), so more may be waiting: the
   * worker folds again at once instead of letting events gather.
   */
  more?: boolean;
}

/** What a log had acknowledged at one moment, for a caller that must see all of it stored. */
export interface AcknowledgedMark {
  /** True once the fold has stored every event the log had acknowledged when the mark was taken. */
  stored(): Promise<boolean>;
}

export interface FoldOptions {
  /** Fold only if no other fold is running right now, instead of waiting for it to end. */
  ifFree?: boolean;
}

/**
 * The permanent event log: the port every acceptance path (events, import, business events,
 * test events) writes through, and the fold reads. `append` returns only once the events
 * survive a crash; storing, metering and de-duplication happen in the same step so a retried
 * event is counted once. `fold` takes appended events into the per-user daily aggregates
 * exactly once. An append that stored something wakes the fold itself (`onAppend`), so no
 * caller has to.
 */
export interface EventLog {
  /**
   * True when `append` honours `keyHash`, checking the key in the write's own transaction where
   * it can (one round trip less than a lookup first). The caller checks the key itself otherwise.
   */
  readonly checksKeysInWrite?: boolean;
  append(request: AppendRequest): Promise<AppendResult>;
  /**
   * Folds the next appended events (up to `maxTransactions` acceptances) into the aggregates.
   * A row that cannot be folded is quarantined and passed, never retried: it holds nothing back.
   */
  fold(maxTransactions: number, options?: FoldOptions): Promise<FoldResult>;
  /**
   * What is appended but not yet folded: events, except that a log with a queue counts what
   * waits there in its own units (Kafka: messages, each an envelope of a request's events).
   * Zero exactly when everything appended is folded.
   */
  depth(): Promise<number>;
  /**
   * A mark of everything acknowledged so far, for a log whose events reach the fold through a
   * queue (Kafka's topic): acknowledged there, they are in no table the fold position reads
   * until a fold stores them. Absent when an acknowledged event is stored already (the
   * database's log).
   */
  markAcknowledged?(): Promise<AcknowledgedMark>;
  /** Calls `listener` after each append of this process that stored a new event. */
  onAppend(listener: () => void): void;
}
