import { ArbiterError } from '../../errors.ts';
import type {
  DatasetItem,
  EvaluateOptions,
  EvaluationScorer,
  FunctionScorer,
  OfflineRun,
} from '../../evaluation.ts';
import { EVALUATION_CONCURRENCY, EVALUATION_SCORING_WAIT_MS } from '../constants.ts';
import type { ProgressOutput } from '../platform.ts';
import type { RetryPolicy } from '../retry-policy.ts';
import { retryDelayMs } from '../retry-policy.ts';
import type { AsyncContext } from '../user-context.ts';
import type { WireVariant } from '../wire.ts';
import type { EvaluationApi } from './api.ts';
import { forEachBounded } from './bounded.ts';
import { ProgressReporter } from './progress.ts';
import { runTask, type Triple } from './run-task.ts';
import type { TaskMeasure } from './task-measure.ts';
import { ResultUploader } from './uploader.ts';

export interface EvaluationDeps {
  api: EvaluationApi;
  scope: AsyncContext<TaskMeasure>;
  progressOutput: ProgressOutput | null;
  /** Results per upload request. */
  batchSize: number;
  /** Spaces the polls of a run still scoring. */
  retry: RetryPolicy;
  warn: (message: string) => void;
}

/** docs/decisions/clients.md#offline-evaluation-in-the-clients-evaluate */
export async function runEvaluation(
  options: EvaluateOptions,
  deps: EvaluationDeps,
): Promise<OfflineRun> {
  checkOptions(options);
  const { api } = deps;
  const run =
    options.runId === undefined
      ? await api.createRun(options.experiment, creationBody(options))
      : await resumable(options, options.runId, api);
  if (run.status !== 'running') return run;
  const variants = await pinnedVariants(run, options.experiment, api);
  const held = options.runId === undefined ? new Set<string>() : await heldResults(run.id, api);
  const custom = new Set(run.scorers.filter((s) => s.kind === 'custom').map((s) => s.name));
  const scorers = (options.scorers ?? []).filter(
    (s): s is FunctionScorer => 'score' in s && typeof s.score === 'function' && custom.has(s.name),
  );
  const uploader = new ResultUploader((rows) => api.uploadResults(run.id, rows), deps.batchSize);
  const progress = new ProgressReporter({
    experiment: options.experiment,
    total: run.expected_results - held.size,
    output: deps.progressOutput,
    onProgress: options.onProgress,
    now: () => performance.now(),
    warn: deps.warn,
  });
  const runner = { task: options.task, variants, scorers, scope: deps.scope };
  try {
    await forEachBounded(
      triples(api.items(run.dataset_id, run.dataset_version), run, held),
      Math.max(1, Math.floor(options.concurrency ?? EVALUATION_CONCURRENCY)),
      async (triple) => {
        uploader.check();
        await uploader.add(await runTask(triple, runner));
        progress.step();
      },
    );
    await uploader.drain();
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new ArbiterError(
      `${why} (run ${run.id} stays open: evaluate({ ..., runId: '${run.id}' }) runs what it lacks)`,
    );
  } finally {
    progress.finish();
  }
  return whenScored(await api.completeRun(run.id), deps);
}

function checkOptions(options: EvaluateOptions): void {
  const problems: string[] = [];
  if (typeof options?.experiment !== 'string' || options.experiment === '')
    problems.push('`experiment` (an id or name)');
  if (typeof options?.dataset !== 'string' || options.dataset === '')
    problems.push('`dataset` (an id or name)');
  if (typeof options?.task !== 'function') problems.push('`task` (a function)');
  const { concurrency } = options ?? {};
  if (
    concurrency !== undefined &&
    !(typeof concurrency === 'number' && Number.isFinite(concurrency))
  )
    problems.push('`concurrency` as a finite number');
  if (problems.length > 0) throw new ArbiterError(`evaluate: needs ${problems.join(', ')}`);
}

/** The body of `POST /v1/experiments/{id}/offline-runs`; scorer functions stay here. */
function creationBody(options: EvaluateOptions): Record<string, unknown> {
  const body: Record<string, unknown> = { dataset_id: options.dataset };
  if (options.datasetVersion !== undefined) body.dataset_version = options.datasetVersion;
  if (options.variants !== undefined) body.variants = [...options.variants];
  if (options.repeats !== undefined) body.repeats = options.repeats;
  if (options.scorers !== undefined) body.scorers = options.scorers.map(serverScorer);
  if (options.note !== undefined) body.note = options.note;
  return body;
}

function serverScorer(scorer: EvaluationScorer): Record<string, unknown> {
  const { score: _function, ...sent } = scorer as EvaluationScorer & { score?: unknown };
  return sent;
}

/** The run to resume, checked to be one of this experiment and dataset. */
async function resumable(
  options: EvaluateOptions,
  runId: string,
  api: EvaluationApi,
): Promise<OfflineRun> {
  const run = await api.getRun(runId);
  if (run.status !== 'running') return run;
  const dataset =
    options.dataset === run.dataset_id ? run.dataset_id : (await api.datasetId(options.dataset)).id;
  if (dataset !== run.dataset_id) {
    throw new ArbiterError(`evaluate: run ${runId} is not a run of dataset ${options.dataset}`);
  }
  return run;
}

/**
 * The variants as the run's pinned experiment version defines them, from a config read now. A
 * config at another version no longer holds those prompts: the run cannot go on with them.
 */
async function pinnedVariants(
  run: OfflineRun,
  asked: string,
  api: EvaluationApi,
): Promise<Map<string, WireVariant>> {
  const config = await api.config();
  const experiment = config.experiments.find((e) => e.id === run.experiment_id);
  if (experiment === undefined) {
    throw new ArbiterError(`evaluate: experiment ${run.experiment_id} is not in the config`);
  }
  if (asked !== experiment.id && asked !== experiment.name) {
    throw new ArbiterError(`evaluate: run ${run.id} is not a run of experiment ${asked}`);
  }
  if (experiment.version !== run.experiment_version) {
    throw new ArbiterError(
      `evaluate: run ${run.id} pinned version ${run.experiment_version} of experiment ${experiment.name}, which is now at version ${String(experiment.version)}: its prompts are no longer served, start a new run`,
    );
  }
  return new Map(experiment.variants.map((v) => [v.key, v]));
}

const tripleKey = (item: string, variant: string, repeat: number) =>
  `${item}\u0000${variant}\u0000${repeat}`;

/** The (item, variant, repeat) a run already holds. */
async function heldResults(runId: string, api: EvaluationApi): Promise<Set<string>> {
  const held = new Set<string>();
  for await (const page of api.heldResults(runId)) {
    for (const item of page) {
      for (const [variant, results] of Object.entries(item.variants)) {
        for (const { repeat } of results) held.add(tripleKey(item.id, variant, repeat));
      }
    }
  }
  return held;
}

/** Item by item, then variant, then repeat: the triples the run lacks. */
async function* triples(
  pages: AsyncIterable<DatasetItem[]>,
  run: OfflineRun,
  held: ReadonlySet<string>,
): AsyncGenerator<Triple> {
  for await (const page of pages) {
    for (const item of page) {
      for (const variant of run.variants) {
        for (let repeat = 0; repeat < run.repeats; repeat++) {
          if (!held.has(tripleKey(item.id, variant, repeat))) yield { item, variant, repeat };
        }
      }
    }
  }
}

/**
 * `complete` scores inside its request, so its answer is the finished run. A retried request
 * (the first timed out while the server went on) finds it still `scoring`: wait for it.
 */
async function whenScored(run: OfflineRun, deps: EvaluationDeps): Promise<OfflineRun> {
  let current = run;
  let waited = 0;
  for (let poll = 1; current.status === 'scoring'; poll++) {
    if (waited >= EVALUATION_SCORING_WAIT_MS) {
      throw new ArbiterError(
        `evaluate: run ${run.id} is still scoring after ${EVALUATION_SCORING_WAIT_MS / 1_000} s`,
      );
    }
    const delay = retryDelayMs(poll, null, deps.retry, Math.random());
    await new Promise((resolve) => setTimeout(resolve, delay));
    waited += delay;
    current = await deps.api.getRun(run.id);
  }
  return current;
}
