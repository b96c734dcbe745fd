import type { EventType, TrackPayload } from '../types.ts';
import type { ConfigStore } from './config-store.ts';
import type { TaskMeasure } from './evaluate/task-measure.ts';
import { isWireUserId } from './event-validation.ts';
import type { PendingExposures } from './exposure-dedup.ts';
import type { ExposureTarget } from './holdouts-and-layers.ts';
import type { OpenModelCall } from './integration-hooks.ts';
import { describeError, ModelCall } from './model-call.ts';
import type { CallMeasure, ProviderReader } from './model-call-measure.ts';
import type { TargetingTallies } from './targeting-tallies.ts';
import type { AnyAttributes, CurrentUser, PromptVersionRef } from './user-context.ts';

export interface RecorderDeps {
  store: ConfigStore;
  /** Keep prompt and response text on model_call events (judge metrics grade them). */
  recordText: boolean;
  enqueue: (type: EventType, payload: TrackPayload) => void;
  warnOnce: (key: string, message: string) => void;
  /** The evaluation task running here, if any: its calls are measured for its result only. */
  currentTask: () => TaskMeasure | undefined;
  /**
   * Where the holdouts a call reaches queue their exposures, de-duplicated per day as
   * `assign`'s are: a model call records the holdout decision as it records its exposure.
   */
  holdoutExposures: PendingExposures<ExposureTarget>;
  /** Where a recorded call that reaches the targeting is counted, as `assign`'s are (null: not). */
  tallies: TargetingTallies | null;
  /** The exposure's fields: with the call's attributes when `exposureAttributes` is on. */
  exposure: (base: TrackPayload, attributes: AnyAttributes | undefined) => TrackPayload;
}

/**
 * Turns one model call into an `exposure` (when it starts) and a `model_call` (when it ends),
 * for both `wrap` and `interceptModelCall`. A call outside the experiment — user not enrolled,
 * experiment unknown, a draft or stopped experiment — runs unrecorded. Inside an `evaluate`
 * task a call sends no event: it is measured for the task's result. Recording never changes
 * what the caller gets back.
 */
export class ModelCallRecorder {
  constructor(private readonly deps: RecorderDeps) {}

  /** One call through a wrapped provider client; `who` comes from `withUser`. */
  throughWrap(
    experiment: string,
    who: CurrentUser | undefined,
    reader: ProviderReader,
    params: unknown,
    invoke: () => unknown,
  ): unknown {
    // Inside an evaluation task no user is needed: the call belongs to the task's result.
    let call = this.forTask([reader], params);
    if (call === null) {
      if (who === undefined) {
        this.deps.warnOnce('wrap-user', 'wrap: model call outside withUser(), not recorded');
      } else {
        call = this.begin(experiment, who, [reader], params);
      }
    }
    if (call === null) return invoke();
    let result: unknown;
    try {
      result = invoke();
    } catch (err) {
      call.observer.fail(err);
      throw err;
    }
    return call.observer.observe(result);
  }

  async explicit<T>(
    experiment: string,
    who: CurrentUser,
    readers: readonly ProviderReader[],
    fn: (variant: string | null) => T | PromiseLike<T>,
  ): Promise<T> {
    const call =
      this.forTask(readers, undefined) ?? this.begin(experiment, who, readers, undefined);
    if (call === null) return fn(this.variantOf(experiment, who));
    let value: T;
    try {
      value = await fn(call.variant);
    } catch (err) {
      call.observer.fail(err);
      throw err;
    }
    return call.observer.observeValue(value);
  }

  /**
   * One call seen through a framework integration (the AI SDK middleware, the LangChain
   * handler), which reports its start, first token and end itself; null when not recorded.
   */
  open(experiment: string, who: CurrentUser | undefined, source: string): OpenModelCall | null {
    let call = this.forTask([], undefined);
    if (call === null) {
      if (who === undefined) {
        this.deps.warnOnce(`${source}-user`, `${source}: model call without a user, not recorded`);
        return null;
      }
      call = this.begin(experiment, who, [], undefined);
    }
    if (call === null) return null;
    const { variant, observer } = call;
    return {
      variant,
      firstToken: () => observer.firstToken(),
      complete: (measure) => observer.complete(measure),
      fail: (err, measure) => {
        if (measure !== undefined) observer.complete({ ...measure, error: describeError(err) });
        else observer.fail(err);
      },
    };
  }

  /**
   * Records the exposure and returns the timer of the model_call, or null when the call is not
   * part of the experiment. Without a config yet, the server works the variant out itself.
   */
  private begin(
    experiment: string,
    { user, attributes, prompt }: CurrentUser,
    readers: readonly ProviderReader[],
    params: unknown,
  ): { variant: string | null; observer: ModelCall } | null {
    const { store, enqueue, warnOnce } = this.deps;
    try {
      if (typeof user !== 'string' || !isWireUserId(user)) return null;
      const entry = store.lookup(experiment);
      if (entry === undefined && store.loaded) {
        warnOnce(`unknown:${experiment}`, `experiment ${experiment} is not in the config`);
        return null;
      }
      const variant =
        entry === undefined
          ? null
          : store.variantOf(entry, user, attributes, this.deps.holdoutExposures, this.deps.tallies);
      // A draft or stopped experiment measures nothing: its calls run unrecorded, with the
      // variant it serves (the holdouts reached have queued their exposures all the same).
      if (entry !== undefined && (variant === null || entry.status !== 'running')) return null;
      const base = { experiment_id: entry?.id ?? experiment, user_id: user };
      // The model_call that follows carries no attributes, whatever the option says.
      enqueue(
        'exposure',
        this.deps.exposure(variant === null ? base : { ...base, variant }, attributes),
      );
      const observer = new ModelCall(readers, params, (measure, latencyMs) =>
        enqueue('model_call', {
          ...base,
          ...carryingPrompt(modelCallFields(measure, this.deps.recordText), prompt),
          latency_ms: latencyMs,
        }),
      );
      return { variant, observer };
    } catch (err) {
      warnOnce('model-call', `model call not recorded: ${String(err)}`);
      return null;
    }
  }

  /** The timer of a call made inside an evaluation task, or null outside one. */
  private forTask(
    readers: readonly ProviderReader[],
    params: unknown,
  ): { variant: string | null; observer: ModelCall } | null {
    const task = this.deps.currentTask();
    if (task === undefined) return null;
    return { variant: task.variant, observer: new ModelCall(readers, params, task.begin()) };
  }

  private variantOf(experiment: string, { user, attributes }: CurrentUser): string | null {
    const entry = this.deps.store.lookup(experiment);
    return entry === undefined || typeof user !== 'string'
      ? null
      : this.deps.store.variantOf(entry, user, attributes);
  }
}

/**
 * The stored prompt the call was made with (`withPrompt`), in the metadata as the wire's
 * `prompt_name` and `prompt_version` (docs/wire-format.md#prompts-on-model-calls).
 */
function carryingPrompt(
  fields: Partial<TrackPayload>,
  prompt: PromptVersionRef | undefined,
): Partial<TrackPayload> {
  if (prompt === undefined) return fields;
  const metadata = { ...fields.metadata, prompt_name: prompt.name, prompt_version: prompt.version };
  return { ...fields, metadata };
}

function modelCallFields(m: CallMeasure, recordText: boolean): Partial<TrackPayload> {
  const out: Partial<TrackPayload> = { error: m.error ?? null };
  if (m.model !== undefined) out.model = m.model;
  if (m.input_tokens !== undefined) out.input_tokens = m.input_tokens;
  if (m.output_tokens !== undefined) out.output_tokens = m.output_tokens;
  // A part goes only with its total and within it: the server refuses it otherwise.
  if (m.cached_input_tokens !== undefined && m.cached_input_tokens <= (m.input_tokens ?? -1))
    out.cached_input_tokens = m.cached_input_tokens;
  if (m.reasoning_tokens !== undefined && m.reasoning_tokens <= (m.output_tokens ?? -1))
    out.reasoning_tokens = m.reasoning_tokens;
  if (recordText && m.prompt !== undefined) out.prompt = m.prompt;
  if (recordText && m.response !== undefined) out.response = m.response;
  if (m.cost_usd !== undefined) out.cost_usd = m.cost_usd;
  // The wire has no field for it: the metadata carries it, like any measurement of the caller's.
  if (m.time_to_first_token_ms !== undefined) {
    out.metadata = { time_to_first_token_ms: m.time_to_first_token_ms };
  }
  return out;
}
