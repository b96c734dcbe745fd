import type { Gate, NonDeterminismEntry, OfflineComparison } from '@arbiter/stats';
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Database, Transaction } from '../../db/connect.ts';
import { datasets, datasetVersions, offlineResults, offlineRuns } from '../../db/schema.ts';
import { UUID } from '../../schemas/uuid.ts';
import { recordAudit } from '../audit.ts';
import { addressed as datasetAddressed, notFound as datasetNotFound } from '../datasets/service.ts';
import { loadCurrentVersion } from '../experiments/current-version.ts';
import {
  addressed as experimentAddressed,
  notFound as experimentNotFound,
} from '../experiments/service.ts';
import { DomainError } from '../outcomes.ts';
import { effectivePlan } from '../plans/effective-plan.ts';
import { PLAN_LIMITS } from '../plans/plans.ts';
import { MEASURED_SCORERS, type MeasuredScorer, type RunInput, type Scorer } from './run-schema.ts';

/** Who acts on a run: a dashboard session (a user) or the org's secret key (no user). */
export interface RunActor {
  orgId: string;
  userId: string | null;
  via: 'session' | 'secret_key';
}

export type RunRow = typeof offlineRuns.$inferSelect;
type RunStatus = 'running' | 'scoring' | 'complete' | 'failed';

/** What `complete` stores in `result`. */
export interface RunResult {
  coverage: Coverage;
  comparisons: Record<string, OfflineComparison>;
  summary: Record<string, NonDeterminismEntry>;
  gates: Record<string, Gate>;
}

export interface Coverage {
  expected_results: number;
  received_results: number;
  missing_results: number;
  failed_results: number;
  missing: Array<{ item_id: string; variant: string; repeat: number }>;
}

export function runNotFound(id: string): DomainError {
  return new DomainError('offline-run-not-found', `No offline run with the id "${id}" in your org`);
}

function invalid(message: string, errors: Array<{ pointer: string; detail: string }>) {
  return new DomainError('offline-run-invalid', message, { errors });
}

export function present(row: RunRow, receivedResults: number) {
  const result = row.result as RunResult | null;
  return {
    id: row.id,
    experiment_id: row.experimentId,
    experiment_version: row.experimentVersion,
    dataset_id: row.datasetId,
    dataset_version: row.datasetVersion,
    variants: row.variants,
    baseline: row.variants[0] as string,
    repeats: row.repeats,
    scorers: row.scorers as unknown as Scorer[],
    note: row.note,
    status: row.status as RunStatus,
    failure_reason: row.failureReason,
    item_count: row.itemCount,
    expected_results: row.expectedResults,
    received_results: receivedResults,
    coverage: result?.coverage ?? null,
    comparisons: result?.comparisons ?? null,
    summary: result?.summary ?? null,
    gates: result?.gates ?? null,
    created_at: row.createdAt.toISOString(),
    completed_at: row.completedAt?.toISOString() ?? null,
  };
}
export type Run = ReturnType<typeof present>;

const isMeasured = (kind: string): kind is MeasuredScorer =>
  (MEASURED_SCORERS as readonly string[]).includes(kind);

/** The scorers as the run keeps them: checked, with direction and margin decided. */
function normalizeScorers(input: NonNullable<RunInput['scorers']>): Scorer[] {
  const errors: Array<{ pointer: string; detail: string }> = [];
  const seen = new Set<string>();
  const scorers = input.map((s, i) => {
    const at = `#/scorers/${i}`;
    if (seen.has(s.name)) errors.push({ pointer: `${at}/name`, detail: 'is used twice' });
    seen.add(s.name);
    const measured = isMeasured(s.kind);
    if (measured && s.name !== s.kind)
      errors.push({
        pointer: `${at}/name`,
        detail: `a measured scorer is named as its kind, "${s.kind}"`,
      });
    if (!measured && isMeasured(s.name))
      errors.push({
        pointer: `${at}/name`,
        detail: `"${s.name}" is the name of a measured scorer`,
      });
    if (s.kind === 'numeric_close' && s.tolerance === undefined)
      errors.push({ pointer: `${at}/tolerance`, detail: 'is required for numeric_close' });
    if (s.kind !== 'numeric_close' && s.tolerance !== undefined)
      errors.push({ pointer: `${at}/tolerance`, detail: 'is for numeric_close only' });
    if (s.kind !== 'exact_match' && s.case_sensitive !== undefined)
      errors.push({ pointer: `${at}/case_sensitive`, detail: 'is for exact_match only' });
    if (s.kind === 'judge' && s.rubric === undefined)
      errors.push({ pointer: `${at}/rubric`, detail: 'is required for judge' });
    if (s.kind !== 'judge' && s.rubric !== undefined)
      errors.push({ pointer: `${at}/rubric`, detail: 'is for judge only' });
    const scorer: Scorer = {
      name: s.name,
      kind: s.kind,
      direction: s.direction ?? (measured ? 'decrease' : 'increase'),
      non_inferiority_margin: s.non_inferiority_margin ?? null,
    };
    if (s.kind === 'exact_match') scorer.case_sensitive = s.case_sensitive ?? true;
    if (s.tolerance !== undefined) scorer.tolerance = s.tolerance;
    if (s.rubric !== undefined) scorer.rubric = s.rubric;
    return scorer;
  });
  if (errors.length > 0) throw invalid('The scorers are not valid', errors);
  return scorers;
}

/**
 * A judge scorer needs a plan with judge evaluations (refused on free with the plan needed, as
 * a judge metric is) and a judge endpoint on this server.
 */
async function checkJudgeAllowed(
  tx: Transaction,
  orgId: string,
  scorers: Scorer[],
  judgeConfigured: boolean,
  now: Date,
): Promise<void> {
  const index = scorers.findIndex((s) => s.kind === 'judge');
  if (index < 0) return;
  const pointer = `#/scorers/${index}/kind`;
  const { plan } = await effectivePlan(tx, orgId, now);
  if (PLAN_LIMITS[plan].monthly_judge_allowance <= 0) {
    throw new DomainError(
      'plan-required',
      `Judge scorers need the pro plan or higher; your org is on ${plan}`,
      {
        plan_required: 'pro',
        errors: [{ pointer, detail: 'judge scorers need the pro plan or higher' }],
      },
    );
  }
  if (!judgeConfigured) {
    throw invalid('This server has no judge model', [
      {
        pointer,
        detail: 'no judge endpoint is configured on this server (ARBITER_JUDGE_BASE_URL)',
      },
    ]);
  }
}

/** The variants run, the baseline (the first allocation slice's variant) first. */
function chooseVariants(
  config: { allocation: Array<{ variant: string }>; variants: Array<{ key: string }> },
  asked: string[] | undefined,
): string[] {
  const baseline = config.allocation[0]?.variant as string;
  const keys = config.variants.map((v) => v.key);
  if (asked === undefined) return [baseline, ...keys.filter((k) => k !== baseline)];
  const errors = asked.flatMap((key, i) =>
    keys.includes(key)
      ? []
      : [
          {
            pointer: `#/variants/${i}`,
            detail: `is not a variant of the experiment's current version (${keys.join(', ')})`,
          },
        ],
  );
  if (!asked.includes(baseline))
    errors.push({
      pointer: '#/variants',
      detail: `must include the baseline "${baseline}", the variant of the first allocation slice`,
    });
  if (errors.length > 0) throw invalid('The variants are not valid', errors);
  return [baseline, ...asked.filter((k) => k !== baseline)];
}

/**
 * The dataset version a run pins: the one asked for, or the dataset's latest as the run is
 * created (read under a share lock of the dataset, so an upload in flight lands before or
 * after, never half), with its item count; one without items is refused.
 */
async function pinDataset(tx: Transaction, orgId: string, input: RunInput) {
  const [dataset] = await tx
    .select()
    .from(datasets)
    .where(datasetAddressed(orgId, input.dataset_id))
    .for('share');
  if (dataset === undefined) throw datasetNotFound(input.dataset_id);
  const version = input.dataset_version ?? dataset.currentVersion;
  if (version > dataset.currentVersion) {
    throw new DomainError(
      'dataset-version-not-found',
      `Dataset "${dataset.name}" has versions 1 to ${dataset.currentVersion}, not ${version}`,
      {
        errors: [
          { pointer: '#/dataset_version', detail: `is past the latest, ${dataset.currentVersion}` },
        ],
      },
    );
  }
  const [pinned] = await tx
    .select({ itemCount: datasetVersions.itemCount })
    .from(datasetVersions)
    .where(and(eq(datasetVersions.datasetId, dataset.id), eq(datasetVersions.version, version)));
  const itemCount = pinned?.itemCount ?? 0;
  if (itemCount === 0) {
    throw invalid(`Version ${version} of dataset "${dataset.name}" holds no items`, [
      {
        pointer: input.dataset_version === undefined ? '#/dataset_id' : '#/dataset_version',
        detail: 'holds no items',
      },
    ]);
  }
  return { datasetId: dataset.id, version, itemCount };
}

/**
 * Creates a run, pinning the experiment's current version and the dataset version, with an
 * audit entry on the experiment that names the run.
 */
export async function createRun(
  db: Database,
  actor: RunActor,
  experimentIdOrName: string,
  input: RunInput,
  now: Date,
  options: { judgeConfigured: boolean },
): Promise<Run> {
  const [experiment] = await loadCurrentVersion(
    db,
    experimentAddressed(actor.orgId, experimentIdOrName),
  );
  if (experiment === undefined) throw experimentNotFound(experimentIdOrName);
  const variants = chooseVariants(experiment.version.config, input.variants);
  const scorers = normalizeScorers(input.scorers ?? []);
  const repeats = input.repeats ?? 1;
  return await db.transaction(async (tx) => {
    await checkJudgeAllowed(tx, actor.orgId, scorers, options.judgeConfigured, now);
    const { datasetId, version, itemCount } = await pinDataset(tx, actor.orgId, input);
    const pins = {
      experiment_version: experiment.version.version,
      dataset_id: datasetId,
      dataset_version: version,
      variants,
      repeats,
    };
    const [row] = await tx
      .insert(offlineRuns)
      .values({
        orgId: actor.orgId,
        experimentId: experiment.row.id,
        experimentVersion: pins.experiment_version,
        datasetId,
        datasetVersion: version,
        variants,
        repeats,
        scorers: scorers as unknown as Record<string, unknown>[],
        note: input.note ?? null,
        status: 'running',
        itemCount,
        expectedResults: itemCount * variants.length * repeats,
        createdBy: actor.userId,
        createdAt: now,
      })
      .returning();
    await recordAudit(tx, {
      orgId: actor.orgId,
      actorUserId: actor.userId,
      action: 'offline_run.created',
      targetType: 'experiment',
      targetId: experiment.row.id,
      details: { run_id: row!.id, ...pins, scorers: scorers.map((s) => s.name), via: actor.via },
    });
    return present(row!, 0);
  });
}

export async function receivedCount(db: Pick<Database, 'select'>, runId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(offlineResults)
    .where(eq(offlineResults.runId, runId));
  return row?.n ?? 0;
}

/** The run's row if it is the org's; a malformed id is simply not found. */
export async function loadRun(
  db: Pick<Database, 'select'>,
  orgId: string,
  runId: string,
): Promise<RunRow> {
  if (!UUID.test(runId)) throw runNotFound(runId);
  const [row] = await db
    .select()
    .from(offlineRuns)
    .where(and(eq(offlineRuns.id, runId), eq(offlineRuns.orgId, orgId)));
  if (row === undefined) throw runNotFound(runId);
  return row;
}

export async function getRun(db: Database, orgId: string, runId: string): Promise<Run> {
  const row = await loadRun(db, orgId, runId);
  return present(row, await receivedCount(db, row.id));
}

/** An experiment's runs, newest first. */
export async function listRuns(
  db: Database,
  orgId: string,
  experimentIdOrName: string,
): Promise<Run[]> {
  const [experiment] = await loadCurrentVersion(db, experimentAddressed(orgId, experimentIdOrName));
  if (experiment === undefined) throw experimentNotFound(experimentIdOrName);
  const rows = await db
    .select({
      run: offlineRuns,
      received:
        sql<number>`(select count(*) from ${offlineResults} where ${offlineResults.runId} = ${offlineRuns.id})`.mapWith(
          Number,
        ),
    })
    .from(offlineRuns)
    .where(and(eq(offlineRuns.experimentId, experiment.row.id), eq(offlineRuns.orgId, orgId)))
    .orderBy(desc(offlineRuns.createdAt), desc(offlineRuns.id));
  return rows.map((r) => present(r.run, r.received));
}
