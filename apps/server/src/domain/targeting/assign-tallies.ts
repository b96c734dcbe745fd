import type { Logger } from 'pino';
import type { Database } from '../../db/connect.ts';
import { logSafeError } from '../../db/log-safe-error.ts';
import { DailySeen } from '../../kernel/daily-seen.ts';
import { PeriodicFlush } from '../../kernel/periodic-flush.ts';
import type { Clock } from '../../kernel/ports.ts';
import { addTallies, type Tally } from './tallies.ts';

/** (experiment, user) pairs remembered per UTC day: about 100 bytes each. */
const SEEN_CAPACITY = 100_000;
/** How often the counts are added to the table: a write per org, not per assign. */
const FLUSH_INTERVAL_MS = 10_000;

/**
 * The targeting tallies of `POST /v1/assign`, counted as a client library counts its own
 * (docs/decisions/targeting.md#the-share-of-users-targeting-excluded): distinct users per experiment and
 * UTC day in this process, from a bounded memory that forgets everyone when full (a user may
 * then count twice), added to `targeting_tallies` in the background and on close.
 */
export class AssignTallies {
  #seen = new DailySeen(SEEN_CAPACITY);
  #counts = new Map<string, { orgId: string; tally: Tally }>();
  #flusher = new PeriodicFlush(FLUSH_INTERVAL_MS, () => this.#write());

  /** Flushes every `FLUSH_INTERVAL_MS` from now until `stop()`; the timer keeps no process up. */
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly log: Pick<Logger, 'warn'>,
  ) {}

  /** Counts a check that reached `experimentId`'s targeting, once per user and UTC day. */
  reached(orgId: string, experimentId: string, userId: string, matched: boolean): void {
    // Experiment ids are unique across orgs: the id alone scopes a user.
    if (!this.#seen.firstToday(experimentId, userId, this.clock.now())) return;
    const day = this.#seen.day;
    const countKey = `${orgId} ${experimentId} ${day}`;
    let entry = this.#counts.get(countKey);
    if (entry === undefined) {
      entry = { orgId, tally: { experiment_id: experimentId, day, matched: 0, excluded: 0 } };
      this.#counts.set(countKey, entry);
    }
    if (matched) entry.tally.matched++;
    else entry.tally.excluded++;
  }

  /** Adds what was counted to the table; what a failed write held is counted again next time. */
  flush(): Promise<void> {
    return this.#flusher.flush();
  }

  stop(): Promise<void> {
    return this.#flusher.stop();
  }

  async #write(): Promise<void> {
    const taken = this.#counts;
    if (taken.size === 0) return;
    this.#counts = new Map();
    const byOrg = new Map<string, Tally[]>();
    for (const { orgId, tally } of taken.values())
      byOrg.set(orgId, [...(byOrg.get(orgId) ?? []), tally]);
    for (const [orgId, tallies] of byOrg) {
      try {
        await addTallies(this.db, orgId, tallies);
      } catch (err) {
        this.log.warn({ err: logSafeError(err) }, 'assign targeting tallies not stored, kept');
        for (const t of tallies) this.#restore(orgId, t);
      }
    }
  }

  #restore(orgId: string, t: Tally): void {
    const key = `${orgId} ${t.experiment_id} ${t.day}`;
    const entry = this.#counts.get(key);
    if (entry === undefined) this.#counts.set(key, { orgId, tally: t });
    else {
      entry.tally.matched += t.matched;
      entry.tally.excluded += t.excluded;
    }
  }
}
