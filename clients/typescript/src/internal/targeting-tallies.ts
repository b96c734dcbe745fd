import type { Logger } from '../types.ts';
import { KEEPALIVE_MAX_BYTES } from './constants.ts';
import type { ExposureDedup } from './exposure-dedup.ts';
import type { Transport } from './transport.ts';
import { DAY_MS, type UtcDay } from './utc-day.ts';

/** `POST /v1/targeting-tallies` takes at most this many tallies a request. */
const MAX_TALLIES_PER_REQUEST = 1_000;
/**
 * (experiment, day) pairs kept unsent, the API unreachable: a few days of a hundred targeted
 * experiments many times over. Past it a new pair is not counted, rather than memory grow.
 */
const MAX_PENDING_TALLIES = 10_000;
/** `POST /v1/targeting-tallies` takes the secret key only. */
const SECRET_KEY_PREFIX = 'svc_sk_';

/**
 * Whether a client tallies: as `asked` (undefined: as `exposing`), and only with the secret key,
 * the one key the route takes: with any other, no tally is counted or sent, and an explicit
 * `true` gets one warning here rather than a refusal at every flush.
 */
export function talliesWanted(
  asked: boolean | undefined,
  exposing: boolean,
  apiKey: string,
  logger: Logger,
): boolean {
  if (!(asked ?? exposing)) return false;
  if (apiKey.startsWith(SECRET_KEY_PREFIX)) return true;
  if (asked === true) {
    logger.warn(
      'trackTargetingTallies: targeting tallies need the secret key (svc_sk_…); with this key they are off',
    );
  }
  return false;
}

/** What a tally needs of an experiment: its id, its exposure table and its fingerprint part. */
export interface TalliedExperiment {
  readonly id: string;
  readonly exposures: ExposureDedup;
  /** XORed into a tally's fingerprint: a code no variant of the experiment has. */
  readonly tallyCode: number;
}

/** One experiment's users who reached its targeting on one UTC day, as the API takes them. */
export interface Tally {
  experiment_id: string;
  day: string;
  matched: number;
  excluded: number;
}

/**
 * Distinct users per experiment and UTC day who reached the experiment's targeting (past its
 * holdouts and layer): `matched` entered, `excluded` got null and sent no exposure. A user is
 * remembered in the experiment's exposure table under a fingerprint of its own (no variant has
 * the tally's code), so a tally never suppresses an exposure; the first check of the day counts,
 * and a table full for the day forgets everyone, so a user may then count twice. With exposures
 * on, `assign`'s checks are looked up in `PendingExposures`' batches and counted by `count`.
 * See docs/decisions/targeting.md#the-share-of-users-targeting-excluded.
 */
export class TargetingTallies {
  #pending = new Map<string, Tally>();
  /** Checks not counted because `MAX_PENDING_TALLIES` pairs were waiting. */
  dropped = 0;

  constructor(private readonly day: UtcDay) {}

  get size(): number {
    return this.#pending.size;
  }

  /**
   * Counts a user's check of `experiment`'s targeting, once per UTC day. (`lo`, `hi`): the two
   * halves of the id's hash by the experiment's hasher, the exposure fingerprint's parts.
   */
  reached(experiment: TalliedExperiment, lo: number, hi: number, matched: boolean): void {
    const day = this.day.current;
    if (experiment.exposures.firstOn(day, lo, hi ^ experiment.tallyCode)) {
      this.count(experiment.id, day, matched);
    }
  }

  /** Counts a user whose check of the day the caller found first in the exposure table. */
  count(experimentId: string, day: number, matched: boolean): void {
    const tally = this.#tallyOf(experimentId, day);
    if (tally === null) this.dropped++;
    else if (matched) tally.matched++;
    else tally.excluded++;
  }

  /** Everything counted so far, taken out: sent now or `restore`d. */
  take(): Tally[] {
    const taken = [...this.#pending.values()];
    this.#pending = new Map();
    return taken;
  }

  /** Puts back tallies that could not be sent, added to what was counted since. */
  restore(tallies: readonly Tally[]): void {
    for (const t of tallies) {
      const kept = this.#slot(t.experiment_id, t.day);
      if (kept === null) {
        this.dropped += t.matched + t.excluded;
        continue;
      }
      kept.matched += t.matched;
      kept.excluded += t.excluded;
    }
  }

  #tallyOf(experimentId: string, day: number): Tally | null {
    return this.#slot(experimentId, new Date(day * DAY_MS).toISOString().slice(0, 10));
  }

  #slot(experimentId: string, day: string): Tally | null {
    const key = `${experimentId} ${day}`;
    const found = this.#pending.get(key);
    if (found !== undefined) return found;
    if (this.#pending.size >= MAX_PENDING_TALLIES) return null;
    const tally = { experiment_id: experimentId, day, matched: 0, excluded: 0 };
    this.#pending.set(key, tally);
    return tally;
  }
}

/**
 * Sends what `tallies` counted, a request per thousand, with the transport's retries. Best
 * effort: refused tallies are dropped (a 400 would refuse them again), unreachable ones are
 * put back for the next flush. Never throws.
 */
export async function sendTallies(
  tallies: TargetingTallies,
  transport: Transport,
  logger: Logger,
  keepalive: boolean,
): Promise<void> {
  const taken = tallies.take();
  for (let i = 0; i < taken.length; i += MAX_TALLIES_PER_REQUEST) {
    const chunk = taken.slice(i, i + MAX_TALLIES_PER_REQUEST);
    const body = JSON.stringify({ tallies: chunk });
    // Ids and days are ASCII: the length is the byte count.
    const result = await transport.request('POST', '/v1/targeting-tallies', {
      body,
      keepalive: keepalive && body.length <= KEEPALIVE_MAX_BYTES,
    });
    if (result.kind === 'unreachable') {
      tallies.restore(taken.slice(i));
      return;
    }
    if (result.kind === 'refused')
      logger.warn(
        `dropped ${chunk.length} targeting tallies: the API refused them (${result.detail})`,
      );
  }
}
