import {
  type IntegrationHooks,
  integrationHooks,
  type OpenModelCall,
} from './internal/integration-hooks.ts';
import {
  isToken,
  readChatPrompt,
  readEnd,
  readStart,
  readTextPrompt,
} from './internal/langchain-measure.ts';
import type { CallMeasure } from './internal/model-call-measure.ts';
import { asObject } from './internal/model-call-measure.ts';
import type { ArbiterInstance } from './types.ts';

export type { ArbiterInstance } from './types.ts';

/**
 * `@arbiter/client/langchain`: a LangChain JS callback handler. It implements the handler
 * interface `@langchain/core` checks (`name`, `awaitHandlers`, the `ignore*` flags and the
 * `handle*` methods) without importing it, so the package keeps no runtime dependency.
 */

export interface ArbiterCallbackHandlerOptions {
  /** The `Arbiter` (either build of `@arbiter/client`) whose rule, queue and `recordModelText` setting the runs go through. */
  client: ArbiterInstance;
  /** Experiment name or id. */
  experiment: string;
  /**
   * The user of every run this handler sees. By default a run's `metadata.arbiter_user_id`,
   * else the user of the `client.withUser(user, fn)` the run started in; runs with none pass
   * unrecorded.
   */
  user?: string;
}

/** The run metadata key naming a run's user (`chain.invoke(input, { metadata: { arbiter_user_id } })`). */
const USER_METADATA_KEY = 'arbiter_user_id';
const SOURCE = 'ArbiterCallbackHandler';

interface Run {
  call: OpenModelCall;
  measure: CallMeasure;
}

/** What LangChain passes a start callback after the model and its input, the same for both. */
type RunStart = [
  runId: string,
  parentRunId?: string,
  extraParams?: Record<string, unknown>,
  tags?: string[],
  metadata?: Record<string, unknown>,
];

/**
 * Records each LLM or chat-model run of a chain or agent as `wrap` records a provider call: an
 * `exposure` when the run starts, and a `model_call` when it ends, with latency, tokens, model,
 * error, and the prompt and response text unless the client has `recordModelText: false`.
 * Streamed runs carry their time to first token in `metadata.time_to_first_token_ms`.
 * Concurrent runs are kept apart by their run ids. Pass it in `callbacks` of a model, a chain's
 * `invoke`/`stream` config, or an agent. Throws a TypeError when `client` is not an
 * `Arbiter`.
 */
export class ArbiterCallbackHandler {
  readonly name = 'ArbiterCallbackHandler';
  /**
   * Called in line rather than queued: the run's start sees the `withUser` scope it was made
   * in, and the work done per callback is a few field reads.
   */
  readonly awaitHandlers = true;
  readonly raiseError = false;
  readonly ignoreLLM = false;
  readonly ignoreChain = true;
  readonly ignoreAgent = true;
  readonly ignoreRetriever = true;
  readonly ignoreCustomEvent = true;

  readonly #hooks: IntegrationHooks;
  readonly #experiment: string;
  readonly #user: string | undefined;
  readonly #runs = new Map<string, Run>();

  constructor(options: ArbiterCallbackHandlerOptions) {
    this.#hooks = integrationHooks(options.client, SOURCE);
    this.#experiment = options.experiment;
    this.#user = options.user;
  }

  handleChatModelStart(_llm: unknown, messages: readonly unknown[], ...run: RunStart): void {
    this.#start(run, (measure) => readChatPrompt(messages, measure));
  }

  handleLLMStart(_llm: unknown, prompts: readonly string[], ...run: RunStart): void {
    this.#start(run, (measure) => readTextPrompt(prompts, measure));
  }

  handleLLMNewToken(
    token: string,
    _idx: unknown,
    runId: string,
    _parentRunId?: string,
    _tags?: string[],
    fields?: unknown,
  ): void {
    const run = this.#runs.get(runId);
    if (run !== undefined && isToken(token, fields)) run.call.firstToken();
  }

  handleLLMEnd(output: unknown, runId: string): void {
    const run = this.#take(runId);
    if (run === undefined) return;
    try {
      readEnd(output, run.measure);
    } catch {}
    run.call.complete(run.measure);
  }

  handleLLMError(err: unknown, runId: string): void {
    const run = this.#take(runId);
    run?.call.fail(err, run.measure);
  }

  /** LangChain copies handlers when it derives a callback manager; the runs stay shared. */
  copy(): this {
    return this;
  }

  #start(
    [runId, , extraParams, , metadata]: RunStart,
    readPrompt: (measure: CallMeasure) => void,
  ): void {
    const fromMetadata = asObject(metadata)?.[USER_METADATA_KEY];
    const user =
      typeof fromMetadata === 'string' ? fromMetadata : (this.#user ?? this.#hooks.currentUser());
    const call = this.#hooks.open(this.#experiment, user, SOURCE);
    if (call === null) return;
    const measure: CallMeasure = {};
    try {
      readStart(extraParams, metadata, measure);
      readPrompt(measure);
    } catch {}
    this.#runs.set(runId, { call, measure });
  }

  #take(runId: string): Run | undefined {
    const run = this.#runs.get(runId);
    this.#runs.delete(runId);
    return run;
  }
}
