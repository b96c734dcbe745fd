import { randomBytes } from 'node:crypto';
import type { BucketMap } from '@arbiter/contract';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Database, Transaction } from '../../db/connect.ts';
import { experiments, experimentVersions, holdouts } from '../../db/schema.ts';
import type { ExperimentConfig } from '../../schemas/experiment-config.ts';
import { UUID } from '../../schemas/uuid.ts';
import { loadCurrentVersion } from '../experiments/current-version.ts';
import {
  checkPlanAllows,
  type Experiment,
  insertExperimentRow,
  present,
} from '../experiments/service.ts';
import { checkConfig } from '../experiments/validate.ts';
import type { Caller } from '../identity/identity.ts';
import { DomainError } from '../outcomes.ts';
import {
  changedFields,
  createVersioned,
  findVersioned,
  tableRows,
  updateVersioned,
  type VersionedConfig,
  versionedReads,
} from '../versioned-config.ts';
import { backingConfig, bucketMapOf, heldOutBuckets } from './holdout-layout.ts';
import type { Holdout, HoldoutChange, HoldoutInput } from './holdout-schema.ts';

/**
 * A holdout is an experiment row of kind `holdout` (docs/decisions/targeting.md#holdouts) with two arms,
 * `holdout` (the control) and `general`, so its exposures are ingested, folded and analysed
 * (SRM, tests, BH) as any experiment's; the `holdouts` row adds its name and experiments.
 */

function invalid(errors: Array<{ pointer: string; detail: string }>): DomainError {
  const first = errors[0]!;
  return new DomainError(
    'config-invalid',
    `${errors.length} invalid field${errors.length === 1 ? '' : 's'} in the body; first: ${first.pointer} ${first.detail}`,
    { errors },
  );
}

function checkPercent(percent: number): void {
  if (Math.abs(percent * 100 - Math.round(percent * 100)) > 1e-6)
    throw invalid([{ pointer: '#/percent', detail: 'must be a multiple of 0.01' }]);
}

/** Experiments named by id or name, as ids; every unknown one is a pointer-level 400. */
async function resolveExperiments(
  tx: Pick<Database, 'select'>,
  orgId: string,
  named: 'all' | string[],
): Promise<'all' | string[]> {
  if (named === 'all') return 'all';
  if (named.length === 0) return [];
  const ids = named.filter((n) => UUID.test(n));
  const names = named.filter((n) => !UUID.test(n));
  const found = await tx
    .select({ id: experiments.id, name: experiments.name })
    .from(experiments)
    .where(
      and(
        eq(experiments.orgId, orgId),
        eq(experiments.kind, 'experiment'),
        sql`(${ids.length > 0 ? inArray(experiments.id, ids) : sql`false`} or ${names.length > 0 ? inArray(experiments.name, names) : sql`false`})`,
      ),
    );
  const errors: Array<{ pointer: string; detail: string }> = [];
  const out: string[] = [];
  named.forEach((n, i) => {
    const hit = found.find((e) => (UUID.test(n) ? e.id === n : e.name === n));
    if (hit === undefined)
      errors.push({ pointer: `#/experiments/${i}`, detail: `no experiment "${n}" in your org` });
    else if (!out.includes(hit.id)) out.push(hit.id);
  });
  if (errors.length > 0) throw invalid(errors);
  return out;
}

type HoldoutRow = typeof holdouts.$inferSelect;

async function loadBacking(db: Pick<Database, 'select'>, id: string) {
  const [found] = await loadCurrentVersion(db as Database, eq(experiments.id, id));
  return found!;
}

/** The `holdouts` row with its backing experiment row and current version. */
type StoredHoldout = HoldoutRow & { backing: Awaited<ReturnType<typeof loadBacking>> };

async function withBacking(db: Pick<Database, 'select'>, row: HoldoutRow): Promise<StoredHoldout> {
  return { ...row, backing: await loadBacking(db, row.id) };
}

function presentHoldout({ backing, ...row }: StoredHoldout): Holdout {
  const config = backing.version.config;
  const held = backing.version.bucketMap.runs.filter((r) => r.variant === 'holdout');
  return {
    id: row.id,
    name: row.name,
    ...(config.description === undefined ? {} : { description: config.description }),
    salt: config.salt,
    bucket_count: config.bucket_count,
    percent: config.allocation[0]!.weight,
    experiments: row.experiments,
    ranges: held.map((r) => ({ start: r.start, end: r.end })),
    metrics: config.metrics,
    version: backing.version.version,
    created_at: row.createdAt.toISOString(),
    updated_at: backing.version.createdAt.toISOString(),
  };
}

const holdoutRows = tableRows(holdouts, holdouts, [asc(holdouts.createdAt), asc(holdouts.id)]);

/** Holdouts as versioned config: a `holdouts` row over an experiment row of kind `holdout`. */
const HOLDOUTS: VersionedConfig<StoredHoldout, Holdout, 'holdout'> = {
  target: 'holdout',
  noun: 'holdout',
  nameField: 'name',
  notFoundCode: 'holdout-not-found',
  async find(db, orgId, idOrName, lock) {
    const row = await holdoutRows.find(db, orgId, idOrName, lock);
    return row && withBacking(db, row);
  },
  async list(db, orgId) {
    const out: StoredHoldout[] = [];
    for (const row of await holdoutRows.list(db, orgId)) out.push(await withBacking(db, row));
    return out;
  },
  version: (holdout) => holdout.backing.row.currentVersion,
  present: (_db, holdout) => presentHoldout(holdout),
};

/** The holdout's experiment row, its first version and its `holdouts` row. */
async function insertHoldout(
  tx: Transaction,
  caller: Caller,
  name: string,
  config: ExperimentConfig,
  bucketMap: BucketMap,
  named: 'all' | string[],
): Promise<HoldoutRow> {
  const row = await insertExperimentRow(tx, caller.orgId, config, { kind: 'holdout' });
  if (row === undefined)
    throw new DomainError('holdout-name-taken', `A holdout named "${name}" exists in your org`, {
      errors: [{ pointer: '#/name', detail: 'is already used in this org' }],
    });
  await tx
    .insert(experimentVersions)
    .values({ experimentId: row.id, version: 1, config, bucketMap, createdBy: caller.userId });
  const [holdout] = await tx
    .insert(holdouts)
    .values({ id: row.id, orgId: caller.orgId, name, experiments: named })
    .returning();
  return holdout!;
}

export async function createHoldout(
  db: Database,
  caller: Caller,
  input: HoldoutInput,
  now: Date,
): Promise<Holdout> {
  checkPercent(input.percent);
  const salt = input.salt ?? `holdout-${randomBytes(8).toString('hex')}`;
  const config = backingConfig(
    input.name,
    salt,
    input.bucket_count,
    input.percent,
    input.metrics ?? [],
    input.description,
  );
  checkConfig(config);
  const bucketMap = bucketMapOf(
    input.bucket_count,
    heldOutBuckets(input.bucket_count, input.percent),
  );
  return await createVersioned(db, caller, HOLDOUTS, async (tx) => {
    await checkPlanAllows(tx, caller.orgId, config, now);
    const named = await resolveExperiments(tx, caller.orgId, input.experiments);
    const holdout = await insertHoldout(tx, caller, input.name, config, bucketMap, named);
    return {
      row: await withBacking(tx, holdout),
      details: { name: input.name, percent: input.percent, experiments: named },
    };
  });
}

function frozen(field: string, value: unknown, why: string): DomainError {
  return new DomainError('frozen-field', `${field} is frozen at ${JSON.stringify(value)}: ${why}`, {
    errors: [{ pointer: `#/${field}`, detail: `must stay ${JSON.stringify(value)}` }],
  });
}

/**
 * The percent a change leaves, with the held-out bucket counts before and after; refused when
 * a frozen field changes or the holdout would shrink (held-out users would enter experiments).
 */
function checkChange(row: HoldoutRow, before: ExperimentConfig, change: HoldoutChange) {
  if (change.name !== undefined && change.name !== row.name)
    throw frozen('name', row.name, 'create a new holdout to use another name');
  for (const field of ['salt', 'bucket_count'] as const)
    if (change[field] !== undefined && change[field] !== before[field])
      throw frozen(field, before[field], 'a user’s holdout bucket depends on it');
  const was = before.allocation[0]!.weight;
  const percent = change.percent ?? was;
  checkPercent(percent);
  const heldBefore = heldOutBuckets(before.bucket_count, was);
  const held = heldOutBuckets(before.bucket_count, percent);
  if (held < heldBefore)
    throw new DomainError(
      'holdout-not-sticky',
      `Shrinking the holdout to ${percent} % would return ${heldBefore - held} buckets of held-out users to the experiments they were measured out of; create a new holdout instead`,
      { errors: [{ pointer: '#/percent', detail: `may grow, not shrink: at least ${was}` }] },
    );
  return { percent, heldBefore, held };
}

export async function updateHoldout(
  db: Database,
  caller: Caller,
  idOrName: string,
  change: HoldoutChange,
  now: Date,
): Promise<Holdout> {
  return await updateVersioned(db, caller, HOLDOUTS, idOrName, async (tx, row, version) => {
    const before = row.backing.version.config;
    const { percent, heldBefore, held } = checkChange(row, before, change);
    const config = backingConfig(
      row.name,
      before.salt,
      before.bucket_count,
      percent,
      change.metrics ?? before.metrics,
      change.description ?? before.description,
    );
    checkConfig(config);
    await checkPlanAllows(tx, caller.orgId, config, now);
    const named =
      change.experiments === undefined
        ? row.experiments
        : await resolveExperiments(tx, caller.orgId, change.experiments);
    const bucketMap = bucketMapOf(before.bucket_count, held);
    const updated = await writeVersion(tx, caller, row.id, { version, config, bucketMap, named });
    return {
      row: await withBacking(tx, updated),
      details: {
        changed: changedFields(change, ['name', 'salt', 'bucket_count']),
        // growing the percent is the one change that moves users (general → holdout)
        ...(held > heldBefore ? { moved_buckets: { start: heldBefore, end: held } } : {}),
      },
    };
  });
}

/** The holdout's next version: a version of its experiment row, and its experiments. */
async function writeVersion(
  tx: Transaction,
  caller: Caller,
  id: string,
  next: {
    version: number;
    config: ExperimentConfig;
    bucketMap: BucketMap;
    named: HoldoutRow['experiments'];
  },
): Promise<HoldoutRow> {
  await tx.insert(experimentVersions).values({
    experimentId: id,
    version: next.version,
    config: next.config,
    bucketMap: next.bucketMap,
    createdBy: caller.userId,
  });
  await tx
    .update(experiments)
    .set({ currentVersion: next.version, updatedAt: sql`now()` })
    .where(eq(experiments.id, id));
  const [updated] = await tx
    .update(holdouts)
    .set({ experiments: next.named })
    .where(eq(holdouts.id, id))
    .returning();
  return updated!;
}

/** The org's holdouts by id or name, and all of them in list order. */
export const { get: getHoldout, list: listHoldouts } = versionedReads(HOLDOUTS);

/** The holdout's experiment row as the results machinery reads an experiment. */
export async function holdoutAsExperiment(
  db: Database,
  orgId: string,
  idOrName: string,
): Promise<Experiment> {
  const { backing } = await findVersioned(db, orgId, HOLDOUTS, idOrName);
  return present(backing.row, backing.version);
}
