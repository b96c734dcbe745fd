import type { DatasetItem, EvaluationTask, FunctionScorer } from '../../evaluation.ts';
import { MAX_ERROR_LENGTH } from '../constants.ts';
import type { AsyncContext } from '../user-context.ts';
import type { WireVariant } from '../wire.ts';
import type { ResultRow } from './api.ts';
import { roundMicros, TaskMeasure } from './task-measure.ts';

/** One (item, variant, repeat) of a run. */
export interface Triple {
  item: DatasetItem;
  variant: string;
  repeat: number;
}

export interface TaskRunner {
  task: EvaluationTask;
  /** The pinned experiment version's variants, by key. */
  variants: ReadonlyMap<string, WireVariant>;
  /** Function scorers that are custom scorers of the run. */
  scorers: readonly FunctionScorer[];
  /** Where the running task's model calls find their measurements. */
  scope: AsyncContext<TaskMeasure>;
}

/**
 * Runs the task once and turns what happened into a result row. Never rejects: what the task
 * throws is the row's `error`, and a scorer that throws gives no value.
 */
export async function runTask(triple: Triple, runner: TaskRunner): Promise<ResultRow> {
  const { item, variant, repeat } = triple;
  const config = runner.variants.get(variant);
  const input = {
    item,
    variant,
    prompt: typeof config?.prompt === 'string' ? config.prompt : null,
    variables: { ...(config?.variables ?? {}), ...item.variables },
    repeat,
  };
  const measure = new TaskMeasure(variant);
  const started = performance.now();
  let outcome: { output: unknown } | { error: string };
  try {
    outcome = { output: await runner.scope.run(measure, () => runner.task(input)) };
  } catch (err) {
    outcome = { error: errorText(err) };
  }
  const row: ResultRow = {
    item_id: item.id,
    variant,
    repeat,
    ...measure.measurements(roundMicros(performance.now() - started)),
  };
  if ('error' in outcome) return { ...row, error: outcome.error };
  const stored = asJson(outcome.output);
  if ('error' in stored) return { ...row, error: stored.error };
  if (stored.value !== undefined) row.output = stored.value;
  const scores = await scoresOf(runner.scorers, { item, variant, output: outcome.output, repeat });
  if (Object.keys(scores).length > 0) row.scores = scores;
  return row;
}

async function scoresOf(
  scorers: readonly FunctionScorer[],
  input: Parameters<FunctionScorer['score']>[0],
): Promise<Record<string, number>> {
  const scores: Record<string, number> = {};
  for (const scorer of scorers) {
    try {
      const value: unknown = await scorer.score(input);
      if (typeof value === 'number' && Number.isFinite(value)) scores[scorer.name] = value;
    } catch {
      // A scorer that fails gives this result no value for it (docs/decisions/clients.md#offline-evaluation-in-the-clients-evaluate).
    }
  }
  return scores;
}

/** The output as the server stores it: a string as it is, anything else as its JSON value. */
function asJson(output: unknown): { value: unknown } | { error: string } {
  if (output === undefined || typeof output === 'string') return { value: output };
  try {
    const text = JSON.stringify(output);
    if (text === undefined) return { error: `the task returned ${typeof output}, not JSON` };
    return { value: JSON.parse(text) };
  } catch (err) {
    return { error: `the task's output is not JSON: ${errorText(err)}` };
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what is replaced
const UNSTORABLE = /[\u0000\ud800-\udfff]/gu;

/** The thrown value's message, cut to MAX_ERROR_LENGTH and made storable text. */
export function errorText(err: unknown): string {
  const message =
    err instanceof Error ? err.message || err.name : typeof err === 'string' ? err : String(err);
  const cut =
    message.length > MAX_ERROR_LENGTH ? `${message.slice(0, MAX_ERROR_LENGTH - 1)}…` : message;
  // The server stores text without NUL or unpaired surrogates (with the u flag a surrogate in
  // the class is an unpaired one); a cut may split a pair.
  const text = cut.replace(UNSTORABLE, '\uFFFD');
  return text === '' ? 'the task failed' : text;
}
