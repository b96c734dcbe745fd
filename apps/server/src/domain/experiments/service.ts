import { type BucketMap, clientRanges, initialBucketMap, relayout } from '@arbiter/contract';
import { and, desc, eq, inArray, ne, sql } from 'drizzle-orm';
import type { Database, Transaction } from '../../db/connect.ts';
import { sqlStateOf, UNIQUE_VIOLATION } from '../../db/pg-error-codes.ts';
import { experiments, experimentVersions } from '../../db/schema.ts';
import type {
  ExperimentChange,
  ExperimentConfig,
  ExperimentConfigInput,
} from '../../schemas/experiment-config.ts';
import type { Caller } from '../identity/identity.ts';
import { claimLayerBuckets } from '../layers/service.ts';
import { DomainError } from '../outcomes.ts';
import { refuseSlowPatterns } from '../patterns/redos-analysis.ts';
import { effectivePlan } from '../plans/effective-plan.ts';
import { PLAN_LIMITS } from '../plans/plans.ts';
import { checkPromptReferences } from '../prompts/references.ts';
import { checkRampChange, startRamp } from '../rollouts/ramp.ts';
import { checkGroupsExist } from '../saved-groups/service.ts';
import {
  addressedIn,
  createVersioned,
  updateVersioned,
  type VersionedConfig,
} from '../versioned-config.ts';
import {
  type ConfigSizeLimits,
  checkConfigSize,
  DEFAULT_CONFIG_SIZE_LIMITS,
} from './config-size.ts';
import { loadCurrentVersion } from './current-version.ts';
import { actorNames } from './lifecycle/actors.ts';
import {
  CHANGEABLE,
  type ExperimentStatus,
  invalidTransition,
  type StopView,
} from './lifecycle/states.ts';
import { checkConfig, normaliseConfig } from './validate.ts';

export type Experiment = ExperimentConfig & {
  id: string;
  version: number;
  bucket_ranges: ReturnType<typeof clientRanges>;
  layer_ranges?: Array<{ start: number; end: number }>;
  created_at: string;
  updated_at: string;
  status: ExperimentStatus;
  stop: StopView | null;
};

type Tx = Transaction;
type ExperimentVersionRow = typeof experimentVersions.$inferSelect;
type ExperimentRow = typeof experiments.$inferSelect;

/** The stop of a stopped experiment (or of an archived one that was stopped); null otherwise. */
function stopOf(row: ExperimentRow, actors: ReadonlyMap<string, string>): StopView | null {
  if (row.stopConclusion === null || row.stoppedAt === null || row.servedVariant === null)
    return null;
  if (row.status !== 'stopped' && !(row.status === 'archived' && row.archivedFrom === 'stopped'))
    return null;
  return {
    conclusion: row.stopConclusion,
    served_variant: row.servedVariant,
    reason: row.stopReason,
    stopped_at: row.stoppedAt.toISOString(),
    stopped_by: row.stoppedBy === null ? 'unknown' : (actors.get(row.stoppedBy) ?? row.stoppedBy),
  };
}

/** `actors`: the stopping users' names (actorNames), for `stop.stopped_by`. */
export function present(
  row: ExperimentRow,
  version: Pick<
    ExperimentVersionRow,
    'version' | 'config' | 'bucketMap' | 'createdAt' | 'layerRanges'
  >,
  actors: ReadonlyMap<string, string> = new Map(),
): Experiment {
  return {
    ...version.config,
    id: row.id,
    version: version.version,
    bucket_ranges: clientRanges(version.bucketMap),
    ...(version.layerRanges === null ? {} : { layer_ranges: version.layerRanges }),
    created_at: row.createdAt.toISOString(),
    updated_at: version.createdAt.toISOString(),
    status: row.status,
    stop: stopOf(row, actors),
  };
}

export function notFound(id: string): DomainError {
  return new DomainError(
    'experiment-not-found',
    `No experiment with the id or name "${id}" in your org`,
  );
}

/**
 * Dashboard paths address an experiment by id or by name, like ingest does. Names can never be
 * shaped like a UUID (checked at create and update), so the shape alone tells which one it is.
 */
export function addressed(orgId: string, idOrName: string) {
  return and(
    addressedIn(experiments, orgId, idOrName),
    // A holdout's row is reached through /v1/holdouts, never as an experiment.
    eq(experiments.kind, 'experiment'),
  );
}

function isUniqueViolation(error: unknown): boolean {
  return sqlStateOf(error) === UNIQUE_VIOLATION;
}

function nameTaken(name: string): DomainError {
  return new DomainError(
    'experiment-name-taken',
    `An experiment named "${name}" already exists in your org`,
    {
      errors: [{ pointer: '#/name', detail: 'is already used in this org' }],
    },
  );
}

/** Judge evaluations unlock on pro (docs/decisions/analysis.md#judge-evaluations): refused on free with the plan needed. */
export async function checkPlanAllows(
  tx: Tx,
  orgId: string,
  config: ExperimentConfig,
  now: Date,
): Promise<void> {
  const judgeIndex = config.metrics.findIndex((m) => m.kind === 'judge');
  if (judgeIndex < 0) return;
  const { plan } = await effectivePlan(tx, orgId, now);
  if (PLAN_LIMITS[plan].monthly_judge_allowance > 0) return;
  throw new DomainError(
    'plan-required',
    `Judge metrics need the pro plan or higher; your org is on ${plan}`,
    {
      plan_required: 'pro',
      errors: [
        {
          pointer: `#/metrics/${judgeIndex}/kind`,
          detail: 'judge metrics need the pro plan or higher',
        },
      ],
    },
  );
}

/** A draft's creation says so; a running one's reads as it did before the lifecycle. */
function createdDetails(name: string, status: ExperimentStatus): Record<string, unknown> {
  return status === 'draft' ? { name, version: 1, status } : { name, version: 1 };
}

/**
 * The experiment row of a new experiment (or holdout) at version 1; undefined when its name is
 * taken: the unique index decides a race between two creates of one name.
 */
export async function insertExperimentRow(
  tx: Tx,
  orgId: string,
  config: ExperimentConfig,
  fields: Partial<Pick<ExperimentRow, 'status' | 'kind'>>,
): Promise<ExperimentRow | undefined> {
  const [row] = await tx
    .insert(experiments)
    .values({
      orgId,
      name: config.name,
      salt: config.salt,
      bucketCount: config.bucket_count,
      currentVersion: 1,
      ...fields,
    })
    .onConflictDoNothing({ target: [experiments.orgId, experiments.name] })
    .returning();
  return row;
}

/** An experiment row with its current version, as the versioned-config sequence holds it. */
type StoredExperiment = LoadedExperiment & { id: string };

function stored(row: ExperimentRow, version: ExperimentVersionRow): StoredExperiment {
  return { id: row.id, row, version };
}

/** Experiments as versioned config: an experiment row (kind `experiment`) and its versions. */
const EXPERIMENTS: VersionedConfig<StoredExperiment, Experiment, 'experiment'> = {
  target: 'experiment',
  noun: 'experiment',
  nameField: 'name',
  notFoundCode: 'experiment-not-found',
  async find(db, orgId, idOrName, lock) {
    let where = addressed(orgId, idOrName);
    if (lock) {
      const [row] = await db.select().from(experiments).where(where).for('update');
      if (row === undefined) return undefined;
      // Read after the lock, so a concurrent update's new version is seen.
      where = eq(experiments.id, row.id);
    }
    const [found] = await loadCurrentVersion(db as Database, where);
    return found && stored(found.row, found.version);
  },
  async list(db, orgId) {
    const found = await loadCurrentVersion(
      db as Database,
      and(eq(experiments.orgId, orgId), eq(experiments.kind, 'experiment')),
    ).orderBy(desc(experiments.createdAt), desc(experiments.id));
    return found.map((f) => stored(f.row, f.version));
  },
  version: (experiment) => experiment.row.currentVersion,
  present: (_db, experiment) => present(experiment.row, experiment.version),
};

/** The experiment's layer buckets for `config`, or null outside a layer. */
function claimLayer(tx: Tx, caller: Caller, id: string, config: ExperimentConfig) {
  return config.layer === undefined
    ? null
    : claimLayerBuckets(tx, caller, id, config.layer, config.layer_weight ?? 0);
}

/** A version row of the experiment: the config, its bucket map and layer buckets. */
async function insertVersion(
  tx: Tx,
  caller: Caller,
  id: string,
  next: Pick<ExperimentVersionRow, 'version' | 'config' | 'bucketMap' | 'layerRanges'>,
): Promise<ExperimentVersionRow> {
  const [version] = await tx
    .insert(experimentVersions)
    .values({ experimentId: id, ...next, createdBy: caller.userId })
    .returning();
  return version!;
}

export async function createExperiment(
  db: Database,
  caller: Caller,
  input: ExperimentConfigInput & { status?: 'draft' | 'running' },
  now: Date,
  limits: ConfigSizeLimits = DEFAULT_CONFIG_SIZE_LIMITS,
): Promise<Experiment> {
  const config = normaliseConfig(input);
  checkConfig(config);
  await refuseSlowPatterns(config.targeting);
  const bucketMap = initialBucketMap(config.allocation, config.bucket_count);
  return await createVersioned(db, caller, EXPERIMENTS, async (tx) => {
    await checkPlanAllows(tx, caller.orgId, config, now);
    await checkGroupsExist(tx, caller.orgId, config.targeting);
    await checkPromptReferences(tx, caller.orgId, config);
    await checkConfigSize(tx, caller.orgId, null, config, limits);
    const status = input.status ?? 'running';
    // Created running with a rollout, the ramp starts at once: version 1 has step 1's coverage.
    const first = status === 'running' ? config.rollout?.steps[0]?.coverage : undefined;
    if (first !== undefined) config.coverage = first;
    if (first === 1) delete config.coverage;
    const row = await insertExperimentRow(tx, caller.orgId, config, { status });
    if (row === undefined) throw nameTaken(config.name);
    const layerRanges = await claimLayer(tx, caller, row.id, config);
    const version = await insertVersion(tx, caller, row.id, {
      version: 1,
      config,
      bucketMap,
      layerRanges,
    });
    if (status === 'running' && config.rollout !== undefined)
      await startRamp(tx, row, config.rollout, now, caller.userId);
    return { row: stored(row, version), details: createdDetails(config.name, row.status) };
  });
}

function changedFields(before: ExperimentConfig, after: ExperimentConfig): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]) as Set<
    keyof ExperimentConfig
  >;
  return [...keys].filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k])).sort();
}

/** The config after a change; salt and bucket_count are frozen for the life of the experiment. */
function changedConfig(before: ExperimentConfig, change: ExperimentChange): ExperimentConfig {
  for (const field of ['salt', 'bucket_count'] as const) {
    if (change[field] !== undefined && change[field] !== before[field]) {
      throw new DomainError(
        'frozen-field',
        `${field} is frozen at ${JSON.stringify(before[field])} for the life of the experiment`,
        {
          errors: [{ pointer: `#/${field}`, detail: `must stay ${JSON.stringify(before[field])}` }],
        },
      );
    }
  }
  // The layer is chosen at creation: joining, leaving or moving would let the users of one
  // experiment of a layer into another (docs/decisions/targeting.md#layers).
  if (change.layer !== undefined && change.layer !== before.layer) {
    const reason =
      before.layer === undefined
        ? 'an experiment joins a layer when it is created: joining later would drop its users outside the layer’s share while the layer’s other experiments already had theirs; create a new experiment in the layer'
        : `the experiment owns buckets of layer ${before.layer}: moving it would put users of that layer’s experiments into this one; change layer_weight instead, or create a new experiment`;
    throw new DomainError('frozen-field', `layer is frozen: ${reason}`, {
      errors: [{ pointer: '#/layer', detail: `must stay ${JSON.stringify(before.layer ?? null)}` }],
    });
  }
  const { variants: newVariants, ...rest } = change;
  return normaliseConfig(
    {
      ...before,
      ...rest,
      variants: newVariants ?? before.variants,
      salt: before.salt,
      bucket_count: before.bucket_count,
    },
    before,
  );
}

/** The bucket map of the new allocation, refused when it would move a user between variants. */
function stickyRelayout(map: BucketMap, after: ExperimentConfig): BucketMap {
  const layout = relayout(map, after.allocation);
  if (!layout.ok) {
    throw new DomainError(
      'allocation-not-sticky',
      `This allocation would move users between variants: ${layout.reason}`,
      {
        errors: [{ pointer: '#/allocation', detail: layout.reason }],
      },
    );
  }
  return layout.map;
}

/** The version after `current`, with the changed name; the row must be a draft or running. */
async function writeChange(
  tx: Tx,
  caller: Caller,
  current: StoredExperiment,
  nextVersion: number,
  change: ExperimentChange,
  now: Date,
  limits: ConfigSizeLimits,
) {
  const { id, row } = current;
  // What a stopped or archived experiment served is what its results describe: frozen.
  if (!CHANGEABLE.includes(row.status)) throw invalidTransition(row.status, 'a change (PUT)');
  const before = current.version.config;
  const after = changedConfig(before, change);
  checkConfig(after);
  await checkRampChange(tx, row, before, after);
  await checkPlanAllows(tx, caller.orgId, after, now);
  await checkGroupsExist(tx, caller.orgId, after.targeting);
  await checkPromptReferences(tx, caller.orgId, after);
  await checkConfigSize(tx, caller.orgId, id, after, limits);
  const bucketMap = stickyRelayout(current.version.bucketMap, after);
  const layerRanges = await claimLayer(tx, caller, id, after);
  const version = await insertVersion(tx, caller, id, {
    version: nextVersion,
    config: after,
    bucketMap,
    layerRanges,
  });
  const [updated] = await tx
    .update(experiments)
    .set({ name: after.name, currentVersion: nextVersion, updatedAt: sql`now()` })
    .where(eq(experiments.id, id))
    .returning();
  return {
    row: stored(updated!, version),
    details: { version: nextVersion, changed: changedFields(before, after) },
  };
}

/** A change's patterns are analysed before the transaction: the analyser may take seconds. */
export async function updateExperiment(
  db: Database,
  caller: Caller,
  idOrName: string,
  change: ExperimentChange,
  now: Date,
  limits: ConfigSizeLimits = DEFAULT_CONFIG_SIZE_LIMITS,
): Promise<Experiment> {
  if (change.targeting !== undefined) await refuseSlowPatterns(change.targeting);
  try {
    return await updateVersioned(db, caller, EXPERIMENTS, idOrName, (tx, current, version) =>
      writeChange(tx, caller, current, version, change, now, limits),
    );
  } catch (error) {
    // A rename is an UPDATE, which has no ON CONFLICT clause: the unique index's refusal is the
    // race-free answer, so it is caught here rather than checked for beforehand.
    if (!(error instanceof DomainError) && isUniqueViolation(error))
      throw nameTaken(change.name ?? '');
    throw error;
  }
}

/** An experiment of the org with its current version, as stored: what an analysis run reads. */
export async function loadExperiment(db: Database, orgId: string, idOrName: string) {
  const [found] = await loadCurrentVersion(db, addressed(orgId, idOrName));
  if (!found) throw notFound(idOrName);
  return found;
}

export type LoadedExperiment = Awaited<ReturnType<typeof loadExperiment>>;

export async function getExperiment(
  db: Database,
  orgId: string,
  idOrName: string,
): Promise<Experiment> {
  const found = await loadExperiment(db, orgId, idOrName);
  return present(found.row, found.version, await actorNames(db, [found.row.stoppedBy]));
}

/** `statuses`: those listed; absent, every status but archived. */
export async function listExperiments(
  db: Database,
  orgId: string,
  statuses?: readonly ExperimentStatus[],
): Promise<Experiment[]> {
  const found = await loadCurrentVersion(
    db,
    and(
      eq(experiments.orgId, orgId),
      eq(experiments.kind, 'experiment'),
      statuses === undefined
        ? ne(experiments.status, 'archived')
        : inArray(experiments.status, [...statuses]),
    ),
  ).orderBy(desc(experiments.createdAt), desc(experiments.id));
  const actors = await actorNames(
    db,
    found.map((f) => f.row.stoppedBy),
  );
  return found.map((f) => present(f.row, f.version, actors));
}

export async function listVersions(
  db: Database,
  orgId: string,
  idOrName: string,
): Promise<Experiment[]> {
  const found = await db
    .select({ row: experiments, version: experimentVersions })
    .from(experiments)
    .innerJoin(experimentVersions, eq(experimentVersions.experimentId, experiments.id))
    .where(addressed(orgId, idOrName))
    .orderBy(desc(experimentVersions.version));
  if (found.length === 0) throw notFound(idOrName);
  const actors = await actorNames(db, [found[0]!.row.stoppedBy]);
  return found.map((f) => present(f.row, f.version, actors));
}
