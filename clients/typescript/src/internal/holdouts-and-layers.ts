import { UserHasher } from '@arbiter/bucketing';
import { ExposureDedup, type PendingExposures, variantKeyCode } from './exposure-dedup.ts';
import type { AnyAttributes } from './user-context.ts';
import type { ExperimentConfig, WireSpan } from './wire.ts';

/**
 * What the user must pass before an experiment's targeting and bucket are looked at
 * (docs/wire-format.md#who-enters-an-experiment-holdouts-layers-targeting): its holdouts, then
 * its layer. Resolved once per config, so a call only hashes; an experiment with neither has no
 * gate at all and pays nothing.
 */
export interface Gate {
  /** The experiment's holdouts the config carries, in the experiment's order. */
  readonly holdouts: readonly CompiledHoldout[];
  /** Whether the user's layer bucket is one the experiment owns; null outside any layer. */
  readonly inLayer: ((userId: string) => boolean) | null;
}

/** Where an exposure goes: an experiment or a holdout, with its table of today's exposures. */
export interface ExposureTarget {
  readonly id: string;
  readonly exposures: ExposureDedup;
}

export interface CompiledHoldout extends ExposureTarget {
  /** The bucket hash (`salt:` pre-hashed) and, from the same pass, the fingerprint's second half. */
  readonly hasher: UserHasher;
  readonly bucketCount: number;
  readonly ranges: readonly WireSpan[];
}

/** The variants of a holdout's own exposure. */
const HELD_OUT = 'holdout';
const GENERAL = 'general';
const HELD_OUT_CODE = variantKeyCode(HELD_OUT);
const GENERAL_CODE = variantKeyCode(GENERAL);

/**
 * Whether `userId` passes the gate. Each holdout reached queues its exposure in `exposures`
 * (null: none is sent), `holdout` or `general`, with the call's `attributes` (sent only with
 * `exposureAttributes`); the first that holds the user out ends it.
 */
export function passesGate(
  gate: Gate,
  userId: string,
  exposures: PendingExposures<ExposureTarget> | null,
  attributes?: AnyAttributes,
): boolean {
  const holdouts = gate.holdouts;
  for (let i = 0; i < holdouts.length; i++) {
    const holdout = holdouts[i] as CompiledHoldout;
    const hasher = holdout.hasher;
    const hash = hasher.hash(userId);
    const held = inSpans(holdout.ranges, hash % holdout.bucketCount);
    if (exposures !== null) {
      exposures.add(
        holdout,
        userId,
        held ? HELD_OUT : GENERAL,
        hash,
        hasher.second ^ (held ? HELD_OUT_CODE : GENERAL_CODE),
        attributes,
      );
    }
    if (held) return false;
  }
  return gate.inLayer === null || gate.inLayer(userId);
}

/**
 * The config's layers and holdouts, read once per document. An entry that cannot be read is
 * kept as `null` under its name or id, so that an experiment naming it is left out rather than
 * let through: a holdout the client misreads must not leak its users into the experiment.
 */
export class GateCatalogue {
  readonly #layers = new Map<string, ((userId: string) => number) | null>();
  readonly #holdouts = new Map<string, CompiledHoldout | null>();

  /**
   * `previous`: the holdouts of the config before, whose exposure tables carry over by id, as
   * experiments' do, so a refresh does not send today's holdout exposures again.
   */
  constructor(
    layers: unknown,
    holdouts: unknown,
    previous: GateCatalogue | null,
    exposureDedupCapacity: number,
  ) {
    for (const raw of Array.isArray(layers) ? layers : []) {
      if (!isObject(raw) || typeof raw.name !== 'string' || this.#layers.has(raw.name)) continue;
      const { salt, bucket_count: bucketCount } = raw;
      this.#layers.set(
        raw.name,
        typeof salt === 'string' && isBucketCount(bucketCount)
          ? layerBucketer(salt, bucketCount)
          : null,
      );
    }
    for (const raw of Array.isArray(holdouts) ? holdouts : []) {
      if (!isObject(raw) || typeof raw.id !== 'string' || this.#holdouts.has(raw.id)) continue;
      const { id, salt, bucket_count: bucketCount } = raw;
      const ranges = spans(raw.ranges);
      this.#holdouts.set(
        id,
        typeof salt === 'string' && isBucketCount(bucketCount) && ranges !== null
          ? {
              id,
              hasher: new UserHasher(salt),
              bucketCount,
              ranges,
              exposures:
                (previous === null ? undefined : previous.#holdouts.get(id)?.exposures) ??
                new ExposureDedup(exposureDedupCapacity),
            }
          : null,
      );
    }
  }

  /**
   * The gate of `raw`: null when it has no layer and no holdout the config carries, `'unreadable'`
   * when its fields (or a holdout or layer it names) cannot be read.
   */
  gateOf(raw: ExperimentConfig): Gate | null | 'unreadable' {
    const holdouts: CompiledHoldout[] = [];
    // null reads as absent, as an absent `targeting` does.
    if (raw.holdouts !== undefined && raw.holdouts !== null) {
      if (!Array.isArray(raw.holdouts)) return 'unreadable';
      for (const id of raw.holdouts as unknown[]) {
        if (typeof id !== 'string') return 'unreadable';
        const holdout = this.#holdouts.get(id);
        // An id the config does not carry holds no one out and sends nothing.
        if (holdout === undefined) continue;
        if (holdout === null) return 'unreadable';
        holdouts.push(holdout);
      }
    }
    let inLayer: ((userId: string) => boolean) | null = null;
    if (raw.layer !== undefined && raw.layer !== null) {
      if (typeof raw.layer !== 'string') return 'unreadable';
      const owned = spans(raw.layer_ranges);
      if (owned === null) return 'unreadable';
      const bucketOf = this.#layers.get(raw.layer);
      if (bucketOf === null) return 'unreadable';
      // A layer the config does not carry lets no one in.
      inLayer = bucketOf === undefined ? () => false : (userId) => inSpans(owned, bucketOf(userId));
    }
    return holdouts.length === 0 && inLayer === null ? null : { holdouts, inLayer };
  }
}

function layerBucketer(salt: string, bucketCount: number): (userId: string) => number {
  const hasher = new UserHasher(salt);
  return (userId) => hasher.hash(userId) % bucketCount;
}

/** Whether `bucket` is in one of `ranges` (few, sorted by start). */
function inSpans(ranges: readonly WireSpan[], bucket: number): boolean {
  for (let i = 0; i < ranges.length; i++) {
    const r = ranges[i] as WireSpan;
    if (bucket < r.start) return false;
    if (bucket < r.end) return true;
  }
  return false;
}

/** Half-open ranges of whole numbers, sorted by start; null when `raw` is not such a list. */
function spans(raw: unknown): WireSpan[] | null {
  if (!Array.isArray(raw)) return null;
  const out: WireSpan[] = [];
  for (const r of raw as unknown[]) {
    if (!isObject(r) || !Number.isInteger(r.start) || !Number.isInteger(r.end)) return null;
    out.push({ start: r.start as number, end: r.end as number });
  }
  return out.sort((a, b) => a.start - b.start);
}

function isBucketCount(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 0xffffffff;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
