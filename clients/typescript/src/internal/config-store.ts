import {
  BUCKETING_VERSION,
  createBucketer,
  createCoverage,
  UserHasher,
  variantForBucket,
} from '@arbiter/bucketing';
import {
  type ConditionEngine,
  conditionMatcher,
  FieldTable,
  fieldsMatcher,
  preferredEngine,
  type SavedGroups,
} from '@arbiter/conditions';
import { PreparedAttributes } from '../prepared-attributes.ts';
import { EXPOSURE_DEDUP_CAPACITY } from './constants.ts';
import { ExposureDedup, type PendingExposures, variantKeyCode } from './exposure-dedup.ts';
import {
  type ExposureTarget,
  type Gate,
  GateCatalogue,
  passesGate,
} from './holdouts-and-layers.ts';
import { type PromptIndex, promptIndexOf } from './prompt-resolver.ts';
import type { TalliedExperiment, TargetingTallies } from './targeting-tallies.ts';
import type { AnyAttributes } from './user-context.ts';
import type { ConfigDocument, ExperimentConfig, WireRange, WireVariant } from './wire.ts';

/** An experiment's lifecycle state as the config carries it (archived ones are absent). */
export type ExperimentStatus = 'running' | 'draft' | 'stopped';

/** One experiment of the config, prepared for lookups on the hot path. */
export interface CompiledExperiment extends ExposureTarget, TalliedExperiment {
  readonly id: string;
  readonly name: string;
  /** `running` unless the config says otherwise; only a running experiment sends its exposures. */
  readonly status: ExperimentStatus;
  /** The variant a stopped experiment gives every eligible user; null unless stopped. */
  readonly served: string | null;
  readonly salt: string;
  readonly bucketCount: number;
  /** The experiment's bucket function, with `salt:` pre-hashed once. */
  readonly bucketOf: (userId: string) => number;
  readonly ranges: readonly WireRange[];
  readonly variants: ReadonlyMap<string, WireVariant>;
  /** Its holdouts and layer, passed before the targeting is read; null when it has neither. */
  readonly gate: Gate | null;
  /** Whether the attributes pass the targeting (docs/wire-format.md); null when everyone may enter. */
  readonly targeted: ((attributes: AnyAttributes) => boolean) | null;
  /** Whether the coverage admits a user (docs/wire-format.md#coverage); null at full coverage. */
  readonly covers: ((userId: string) => boolean) | null;
  /**
   * The bucket hash of a user (`bucketOf` is it modulo `bucketCount`) and, in `hasher.second`,
   * a second hash of the id from the same pass: together the fingerprint of exposures.
   */
  readonly hasher: UserHasher;
  /** The distinct variants of `ranges`, and beside each a hash of its key. */
  readonly variantKeys: readonly string[];
  readonly variantCodes: readonly number[];
  /** Fingerprints of (user, variant) sent an exposure today; survives config refreshes. */
  readonly exposures: ExposureDedup;
}

/**
 * The last config the API served. Name and id map to the same compiled entry, so both address
 * forms bucket identically (SPEC, "Experiment addressing"). A document that cannot be used
 * never replaces a good one: the last known config keeps serving.
 */
export class ConfigStore {
  private byKey = new Map<string, CompiledExperiment>();
  private current: { version: number; etag: string } | null = null;
  private gates: GateCatalogue | null = null;
  /** The current config's prompts (docs/wire-format.md#prompts); null before the first config. */
  promptIndex: PromptIndex | null = null;

  /**
   * `exposureDedupCapacity`: fingerprints each experiment's exposure table holds. `engine`: how
   * targeting runs, chosen once here (so when the client is built): the fast path or not.
   */
  constructor(
    private readonly exposureDedupCapacity = EXPOSURE_DEDUP_CAPACITY,
    private readonly engine: ConditionEngine = preferredEngine(),
  ) {}

  get loaded(): boolean {
    return this.current !== null;
  }

  get version(): number | null {
    return this.current?.version ?? null;
  }

  get etag(): string | null {
    return this.current?.etag ?? null;
  }

  lookup(experiment: string): CompiledExperiment | undefined {
    return this.byKey.get(experiment);
  }

  /**
   * The variant of `userId`, or null when a holdout holds the user out, the layer bucket is not
   * the experiment's, the targeting does not match `attributes`, the coverage leaves the user
   * out or the bucket is in no range: in
   * that order, as the server and every client decide it. The holdouts reached queue their
   * exposures in `holdoutExposures` (none when null); a check that reaches the targeting is
   * counted in `tallies` (none when null).
   */
  variantOf(
    experiment: CompiledExperiment,
    userId: string,
    attributes?: AnyAttributes,
    holdoutExposures: PendingExposures<ExposureTarget> | null = null,
    tallies: TargetingTallies | null = null,
  ): string | null {
    if (experiment.status !== 'running') {
      return concludedVariantOf(experiment, userId, attributes, holdoutExposures);
    }
    if (
      experiment.gate !== null &&
      !passesGate(experiment.gate, userId, holdoutExposures, attributes)
    ) {
      return null;
    }
    if (experiment.targeted === null || tallies === null) {
      if (experiment.targeted !== null && !experiment.targeted(attributes ?? {})) return null;
      if (experiment.covers !== null && !experiment.covers(userId)) return null;
      return variantForBucket(experiment.ranges, experiment.bucketOf(userId));
    }
    // The tally's fingerprint and the bucket come from one hash of the id.
    const hash = experiment.hasher.hash(userId);
    if (!passesTargeting(experiment, hash, attributes, tallies)) return null;
    if (experiment.covers !== null && !experiment.covers(userId)) return null;
    return variantForBucket(experiment.ranges, hash % experiment.bucketCount);
  }

  /**
   * `variantOf` for a caller that sends exposures: the holdouts reached and an enrolled user's
   * call go to `pending` with their fingerprints, to be checked against each one's exposure
   * table. One pass over the id gives both the bucket and the fingerprint. With `tallied`, a
   * check that reaches the targeting goes to `pending` too, for the drain's `count`.
   */
  exposedVariantOf(
    experiment: CompiledExperiment,
    userId: string,
    attributes: AnyAttributes | undefined,
    pending: PendingExposures<ExposureTarget>,
    tallied = false,
  ): string | null {
    if (experiment.status !== 'running') {
      return concludedVariantOf(experiment, userId, attributes, pending);
    }
    if (experiment.gate !== null && !passesGate(experiment.gate, userId, pending, attributes)) {
      return null;
    }
    const hash = experiment.hasher.hash(userId);
    const second = experiment.hasher.second;
    const targeted = experiment.targeted;
    const matched = targeted === null || targeted(attributes ?? {});
    const admitted = matched && (experiment.covers === null || experiment.covers(userId));
    const variant = admitted
      ? variantForBucket(experiment.ranges, hash % experiment.bucketCount)
      : null;
    const tallyHi = tallied && targeted !== null ? second ^ experiment.tallyCode : null;
    if (variant === null) {
      if (tallyHi !== null) pending.addTally(experiment, hash, tallyHi, matched);
      return null;
    }
    const hi = second ^ variantCode(experiment, variant);
    // Only a new exposure looks the tally up: a second miss of the caches on every targeted
    // call cost the targeted call its goal of at least half the untargeted call's rate.
    if (tallyHi === null) pending.add(experiment, userId, variant, hash, hi, attributes);
    else pending.addTallied(experiment, userId, variant, hash, hi, tallyHi, attributes);
    return variant;
  }

  /**
   * Installs a fetched document. Returns the problems found: a fatal one leaves the previous
   * config in place; a malformed experiment is left out and the rest is used.
   */
  replace(body: unknown, etag: string | null): { fatal: string | null; skipped: string[] } {
    if (!isObject(body) || !Array.isArray(body.experiments)) {
      return { fatal: 'config document has no experiments array', skipped: [] };
    }
    const doc = body as unknown as ConfigDocument;
    // A hash version this build does not know would put users in the wrong arm; serving
    // nothing (control behaviour) is the safe answer.
    if (String(doc.bucketing_version) !== BUCKETING_VERSION) {
      return {
        fatal: `config uses bucketing version ${String(doc.bucketing_version)}, this client knows ${BUCKETING_VERSION}`,
        skipped: [],
      };
    }
    const next = new Map<string, CompiledExperiment>();
    const skipped: string[] = [];
    // One object per config: the evaluator builds each group's lookup set once for it.
    const groups = isObject(doc.saved_groups) ? doc.saved_groups : NO_GROUPS;
    // One table per config too: a PreparedAttributes reads the fields of all its targeting once.
    const fields = new FieldTable();
    const gates = new GateCatalogue(
      doc.layers,
      doc.holdouts,
      this.gates,
      this.exposureDedupCapacity,
    );
    for (const raw of doc.experiments) {
      const compiled = compile(
        raw,
        this.byKey,
        { groups, fields, engine: this.engine },
        gates,
        this.exposureDedupCapacity,
      );
      if (compiled === null) {
        skipped.push(isObject(raw) ? String(raw.name ?? raw.id) : String(raw));
        continue;
      }
      next.set(compiled.name, compiled);
    }
    // Ids are set after names so that an id wins should a name ever equal another id.
    for (const compiled of [...next.values()]) next.set(compiled.id, compiled);
    this.byKey = next;
    this.gates = gates;
    this.promptIndex = promptIndexOf(doc);
    const version = typeof doc.config_version === 'number' ? doc.config_version : 0;
    this.current = { version, etag: etag ?? `"${version}"` };
    return { fatal: null, skipped };
  }
}

/**
 * The variant of a user in an experiment that does not run (docs/wire-format.md): a draft gives
 * null and sends nothing, not even a holdout's exposure; a stopped one decides eligibility as
 * it did while it ran (holdouts, whose exposures still go to `holdoutExposures`, then the layer
 * and the targeting) and gives every eligible user the served variant, whatever the bucket. The
 * experiment's own exposure and targeting tally are never sent: nothing after the stop is
 * analysed.
 */
function concludedVariantOf(
  experiment: CompiledExperiment,
  userId: string,
  attributes: AnyAttributes | undefined,
  holdoutExposures: PendingExposures<ExposureTarget> | null,
): string | null {
  if (experiment.status === 'draft') return null;
  if (
    experiment.gate !== null &&
    !passesGate(experiment.gate, userId, holdoutExposures, attributes)
  ) {
    return null;
  }
  if (experiment.targeted !== null && !experiment.targeted(attributes ?? {})) return null;
  return experiment.served;
}

/**
 * The experiment's lifecycle state and served variant: absent `status` reads as `running` (older
 * configs); a stopped experiment must name one of its variants. Null when the entry cannot be
 * read (an unknown state included): it is left out, which is the control behaviour.
 */
function lifecycleOf(
  raw: ExperimentConfig,
  variants: ReadonlyMap<string, WireVariant>,
): { status: ExperimentStatus; served: string | null } | null {
  const status = raw.status ?? 'running';
  if (status === 'running' || status === 'draft') return { status, served: null };
  if (status !== 'stopped') return null;
  const served = raw.served_variant;
  return typeof served === 'string' && variants.has(served) ? { status, served } : null;
}

function compile(
  raw: ExperimentConfig,
  previous: ReadonlyMap<string, CompiledExperiment>,
  scope: TargetingScope,
  gates: GateCatalogue,
  exposureDedupCapacity: number,
): CompiledExperiment | null {
  if (!isObject(raw)) return null;
  const { id, name, salt, bucket_count: bucketCount } = raw;
  if (typeof id !== 'string' || typeof name !== 'string' || typeof salt !== 'string') return null;
  if (!Number.isInteger(bucketCount) || bucketCount < 1 || bucketCount > 0xffffffff) return null;
  if (!Array.isArray(raw.ranges) || !Array.isArray(raw.variants)) return null;
  const ranges: WireRange[] = [];
  for (const r of raw.ranges) {
    if (!isObject(r) || typeof r.variant !== 'string') return null;
    if (!Number.isInteger(r.start) || !Number.isInteger(r.end)) return null;
    ranges.push({ variant: r.variant, start: r.start, end: r.end });
  }
  // The lookup is a binary search over ranges ordered by start.
  ranges.sort((a, b) => a.start - b.start);
  const variants = new Map<string, WireVariant>();
  for (const v of raw.variants) {
    if (isObject(v) && typeof v.key === 'string') variants.set(v.key, v);
  }
  const variantKeys = [...new Set(ranges.map((r) => r.variant))];
  const variantCodes = variantKeys.map(variantKeyCode);
  const lifecycle = lifecycleOf(raw, variants);
  if (lifecycle === null) return null;
  const gate = gates.gateOf(raw);
  if (gate === 'unreadable') return null;
  const covers = coverageOf(raw.coverage, salt);
  if (covers === undefined) return null;
  return {
    id,
    name,
    ...lifecycle,
    salt,
    bucketCount,
    bucketOf: createBucketer(salt, bucketCount),
    ranges,
    variants,
    gate,
    targeted: targetingOf(raw.targeting, scope),
    covers,
    hasher: new UserHasher(salt),
    variantKeys,
    variantCodes,
    tallyCode: tallyCodeBeside(variantCodes),
    exposures: previous.get(id)?.exposures ?? new ExposureDedup(exposureDedupCapacity),
  };
}

/**
 * The coverage check: null when whole (absent or 1), undefined when the value cannot be read (a
 * number from 0 to 1), which leaves the experiment out (the control behaviour).
 */
function coverageOf(
  coverage: unknown,
  salt: string,
): ((userId: string) => boolean) | null | undefined {
  if (coverage === undefined || coverage === 1) return null;
  if (typeof coverage !== 'number' || !(coverage >= 0 && coverage <= 1)) return undefined;
  return createCoverage(salt, coverage);
}

/**
 * Whether the targeting matches; with `tallies`, the check is counted. `hash` is the id's hash
 * just taken by the experiment's hasher, whose `second` still holds the other half.
 */
function passesTargeting(
  experiment: CompiledExperiment,
  hash: number,
  attributes: AnyAttributes | undefined,
  tallies: TargetingTallies | null,
): boolean {
  const second = experiment.hasher.second;
  const matched = (experiment.targeted as (attributes: AnyAttributes) => boolean)(attributes ?? {});
  if (tallies !== null) tallies.reached(experiment, hash, second, matched);
  return matched;
}

/** A tally's fingerprint part: any code no variant has, so a tally never reads as an exposure. */
const TALLY_CODE = variantKeyCode('\u0000targeting');
function tallyCodeBeside(variantCodes: readonly number[]): number {
  let code = TALLY_CODE;
  while (variantCodes.includes(code)) code = (code + 1) | 0;
  return code;
}

/**
 * The variant's hash, from a scan of a few keys: the variant is one of the `ranges` strings
 * themselves, so the first comparison that matches is usually one of identity.
 */
function variantCode(experiment: CompiledExperiment, variant: string): number {
  const keys = experiment.variantKeys;
  for (let i = 0; i < keys.length; i++) {
    if (keys[i] === variant) return experiment.variantCodes[i] as number;
  }
  return 0;
}

/** What every condition of one config shares: its saved groups, field table and engine. */
interface TargetingScope {
  readonly groups: SavedGroups;
  readonly fields: FieldTable;
  readonly engine: ConditionEngine;
}

/**
 * Absent or {} lets everyone in; any other value is a condition, compiled once here (one that
 * cannot be read, a non-object included, lets no one in), twice in fact: reading a plain
 * object, and reading a PreparedAttributes' values by the config's field indexes.
 */
function targetingOf(
  targeting: unknown,
  { groups, fields, engine }: TargetingScope,
): ((attributes: AnyAttributes) => boolean) | null {
  if (targeting === undefined || targeting === null) return null;
  if (isObject(targeting) && Object.keys(targeting).length === 0) return null;
  const matches = conditionMatcher(targeting, engine);
  const byIndex = fieldsMatcher(targeting, fields, engine);
  // A plain object pays one prototype check more than before; it then takes the same path.
  return (attributes) => {
    if (!(attributes instanceof PreparedAttributes)) return matches(attributes, groups);
    const values = byIndex === null ? null : attributes.valuesFor(fields);
    // Without values (no code generation, or a read that threw) the copy answers as plain.
    return values === null
      ? matches(attributes.source ?? {}, groups)
      : (byIndex as NonNullable<typeof byIndex>)(values, groups);
  };
}

const NO_GROUPS: SavedGroups = Object.freeze({});

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
