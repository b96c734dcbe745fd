import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { logSafeError } from '../../db/log-safe-error.ts';
import { DailySeen } from '../../kernel/daily-seen.ts';
import { PeriodicFlush } from '../../kernel/periodic-flush.ts';
import type { Clock } from '../../kernel/ports.ts';

/** The acceptance path (`acceptEvents` with the process's parts), handed in by the wiring. */
export type AcceptExposures = (orgId: string, events: ExposureEvent[]) => Promise<unknown>;

/** (experiment, user) pairs, with the variant, remembered per UTC day before starting over. */
const SEEN_CAPACITY = 1_048_576;
/** Exposures waiting for their append at most; past it an evaluation records none (it retries). */
const MAX_PENDING = 100_000;
/** Events per append, as a client's batch. */
const BATCH_SIZE = 1000;
/** How often the waiting exposures are appended: one write per org and interval, not per call. */
const FLUSH_INTERVAL_MS = 1000;

interface ExposureEvent {
  event_id: string;
  type: 'exposure';
  experiment_id: string;
  user_id: string;
  timestamp: string;
  variant: string;
}

/**
 * The id of a user's exposure to a variant on a UTC day, the same in every process: a second
 * process, or this one after a restart or once its memory started over, sends the same id,
 * which the log stores (and meters) once.
 */
export function serverExposureId(
  orgId: string,
  experimentId: string,
  userId: string,
  variant: string,
  day: string,
): string {
  const hex = createHash('sha256')
    .update(['ofrep-exposure', orgId, experimentId, userId, variant, day].join('\u0000'))
    .digest('hex');
  const variantNibble = ((Number.parseInt(hex[16] as string, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variantNibble}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The exposures the server records for callers that send none (OFREP's generic providers):
 * one per user, experiment, variant and UTC day, as a client library de-duplicates its own
 * (docs/decisions/openfeature.md#exposures), appended in the background through the one
 * acceptance path, so they are validated, de-duplicated and metered as any exposure.
 */
export class ServerExposures {
  #seen = new DailySeen(SEEN_CAPACITY);
  #pending = new Map<string, ExposureEvent[]>();
  #queued = 0;
  #flusher = new PeriodicFlush(FLUSH_INTERVAL_MS, () => this.#write());

  /** Flushes every `FLUSH_INTERVAL_MS` from now until `stop()`; the timer keeps no process up. */
  constructor(
    private readonly accept: AcceptExposures,
    private readonly clock: Clock,
    private readonly log: Pick<Logger, 'warn'>,
  ) {}

  /** Records the user's exposure unless this process recorded it today already. */
  record(orgId: string, experimentId: string, userId: string, variant: string): void {
    if (this.#queued >= MAX_PENDING) return;
    const now = this.clock.now();
    // Experiment ids are unique across orgs: the id alone scopes a user.
    if (!this.#seen.firstToday(experimentId, userId, now, variant)) return;
    const event_id = serverExposureId(orgId, experimentId, userId, variant, this.#seen.day);
    const event = {
      event_id,
      type: 'exposure' as const,
      experiment_id: experimentId,
      user_id: userId,
      timestamp: now.toISOString(),
      variant,
    };
    const list = this.#pending.get(orgId);
    if (list === undefined) this.#pending.set(orgId, [event]);
    else list.push(event);
    this.#queued++;
    if (this.#queued >= BATCH_SIZE) void this.flush();
  }

  /** Appends what is waiting; what a failed append held is forgotten, so the next call records it. */
  flush(): Promise<void> {
    return this.#flusher.flush();
  }

  stop(): Promise<void> {
    return this.#flusher.stop();
  }

  async #write(): Promise<void> {
    const taken = this.#pending;
    if (taken.size === 0) return;
    this.#pending = new Map();
    this.#queued = 0;
    for (const [orgId, list] of taken) {
      for (let i = 0; i < list.length; i += BATCH_SIZE) {
        const batch = list.slice(i, i + BATCH_SIZE);
        try {
          await this.accept(orgId, batch);
        } catch (err) {
          this.log.warn({ err: logSafeError(err) }, 'server-side exposures not stored, dropped');
          for (const e of batch) this.#seen.forget(e.experiment_id, e.user_id);
        }
      }
    }
  }
}
