import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import { type Metrics, silentMetrics } from '../kernel/ports.ts';
import { recordSpan } from '../kernel/tracing.ts';
import type { EventLog, FoldOptions, FoldResult } from './event-log.ts';
import { FailureLog } from './failure-log.ts';

/** Acceptances (transactions) one fold takes at most: bounds the fold's memory after a backlog. */
const ACCEPTANCES_PER_FOLD = 500;
const IDLE_POLL_MS = 250;
/** How often `foldAll` looks again for acknowledged events still on their way to the fold. */
const ARRIVAL_POLL_MS = 50;
/**
 * A pause of this process's appends this long ends a gathering: the burst is over, and waiting
 * on would only delay the aggregates. Seen between one and two of it after the last append.
 */
const BURST_OVER_MS = 50;

/**
 * Folds the event log into the aggregates. Runs in every server process; the fold's lock makes
 * them take turns. The log wakes it after an append of this process that stored something;
 * otherwise it polls, for what other processes appended.
 *
 * It folds at most once per `gatherMs` while each fold takes everything there is and this
 * process's appends keep coming ("The fold lets events gather",
 * docs/decisions/ingest.md#the-folds-queue-and-the-fold-gate). A fold's cost is mostly per user-day
 * row and per fold, so a second's events folded at once cost the database less than the same
 * events in folds of a few hundred, at the price of aggregates that trail the log by up to
 * `gatherMs`. When this process's appends pause, the burst is over and the fold runs then. A
 * fold that took its whole span leaves a backlog, which is folded fold after fold without
 * waits; a stop cuts a wait short.
 *
 * Logs say each thing once: a quarantined event when it is set aside (it is never retried), a
 * failing fold when it starts failing (not on every retry) and when it recovers.
 */
export class FoldWorker {
  private running = false;
  private loop: Promise<void> | null = null;
  /** Ends the idle wait early: an append of this process. */
  private wake: (() => void) | null = null;
  /** Ends a wait at once: a stop. */
  private cutShort: (() => void) | null = null;
  /** This process's appends so far: a gathering ends when they stop moving. */
  private appends = 0;
  private readonly failures: FailureLog;

  constructor(
    private readonly eventLog: EventLog,
    private readonly log: Pick<FastifyBaseLogger, 'error' | 'warn' | 'info'> | null = null,
    /** False while the disk is too full to write: the fold waits, the events stay stored. */
    private readonly mayWrite: () => boolean | Promise<boolean> = () => true,
    private readonly metrics: Pick<Metrics, 'countEvents'> = silentMetrics,
    /** Least time from one fold's start to the next while there is no backlog; 0 folds on each append. */
    private readonly gatherMs = 0,
  ) {
    // The label predates the name "fold"; operators' alerts may match it, so it stays.
    this.failures = new FailureLog(log, 'ingest drain');
    eventLog.onAppend(() => this.kick());
  }

  /**
   * Folds until nothing appended before the call is left; returns the number of events folded.
   * A log with a queue (Kafka) counts what it acknowledged before the call as appended though
   * no fold has stored it yet: the folds go on (waiting for it to arrive) until it is stored.
   */
  async foldAll(): Promise<number> {
    const mark = await this.eventLog.markAcknowledged?.();
    let total = 0;
    for (;;) {
      const allStored = (await mark?.stored()) ?? true;
      const { events, quarantined } = await this.foldOnce({});
      total += events;
      if (events > 0 || quarantined.length > 0) continue;
      if (allStored) return total;
      await sleep(ARRIVAL_POLL_MS);
    }
  }

  /**
   * Folds stretch after stretch until nothing is left or the worker is stopped: a stop lets the
   * stretch in progress commit and takes no other, so a shutdown waits for one stretch at most.
   * After a fold that took everything there was, the next waits until `gatherMs` after its start,
   * or until this process's appends since that start pause.
   */
  private async foldWhileRunning(): Promise<number> {
    let total = 0;
    while (this.running) {
      const startedAt = performance.now();
      const appendsBefore = this.appends;
      const { events, quarantined, more } = await this.foldOnce({});
      if (events === 0 && quarantined.length === 0) return total;
      total += events;
      const gathering = this.gatherMs - (performance.now() - startedAt);
      if (more !== true && gathering > 0 && this.running)
        await this.gather(gathering, appendsBefore);
    }
    return total;
  }

  /**
   * One fold of the next stretch, for a caller that needs the fold to move now (an analysis
   * waiting for it): with `ifFree` it returns `busy` instead of waiting when another fold runs.
   */
  async foldOnce(options: FoldOptions): Promise<FoldResult> {
    const startedAt = performance.now();
    const result = await this.eventLog.fold(ACCEPTANCES_PER_FOLD, options);
    // A stretch that moved something is a span; the idle polls (four a second) are not.
    if (result.events > 0 || result.quarantined.length > 0)
      recordSpan('arbiter.fold', startedAt, {
        'arbiter.fold.events': result.events,
        'arbiter.fold.quarantined': result.quarantined.length,
      });
    for (const q of result.quarantined) {
      this.metrics.countEvents(q.type, 'quarantined', 1);
      this.log?.warn(
        { org_id: q.orgId, event_id: q.eventId, reason: q.reason },
        'ingest fold quarantined an event it cannot fold; other events continue',
      );
    }
    return result;
  }

  private kick(): void {
    this.appends++;
    this.wake?.();
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        try {
          const moved = (await this.mayWrite()) ? await this.foldWhileRunning() : 0;
          this.failures.succeeded();
          if (moved > 0) continue;
        } catch (error) {
          this.failures.failed(error);
        }
        if (this.running) await this.pause(IDLE_POLL_MS);
      }
    })();
  }

  /** Waits `ms`, or less when stopped or when this process appends. */
  private pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const end = () => {
        clearTimeout(timer);
        this.wake = null;
        this.cutShort = null;
        resolve();
      };
      const timer = setTimeout(end, ms);
      this.cutShort = end;
      this.wake = end;
    });
  }

  /**
   * Waits `ms` for events to gather, or less when stopped, or once this process has appended
   * since `appendsBefore` and then not for `BURST_OVER_MS`. The pause is seen by counting
   * appends, not by reading a clock: a check every `BURST_OVER_MS` finds none since the last.
   */
  private gather(ms: number, appendsBefore: number): Promise<void> {
    return new Promise<void>((resolve) => {
      let seen = this.appends;
      const end = () => {
        clearTimeout(deadline);
        clearTimeout(quiet);
        this.cutShort = null;
        resolve();
      };
      const check = () => {
        if (this.appends > appendsBefore && this.appends === seen) return end();
        seen = this.appends;
        quiet = setTimeout(check, BURST_OVER_MS);
      };
      const deadline = setTimeout(end, ms);
      let quiet = setTimeout(check, BURST_OVER_MS);
      this.cutShort = end;
    });
  }

  async stop(): Promise<void> {
    this.running = false;
    this.cutShort?.();
    await this.loop;
  }
}
