import { readCall, readGenerateResult, readStreamPart } from './internal/ai-sdk-measure.ts';
import {
  type IntegrationHooks,
  integrationHooks,
  type OpenModelCall,
} from './internal/integration-hooks.ts';
import type { CallMeasure } from './internal/model-call-measure.ts';
import type { ArbiterInstance } from './types.ts';

/**
 * `@arbiter/client/ai-sdk`: a language-model middleware for the Vercel AI SDK's
 * `wrapLanguageModel`. Only the shapes of the AI SDK's provider specification are read; nothing
 * is imported from `ai`, so the package keeps no runtime dependency.
 */

export type { ArbiterInstance } from './types.ts';

export interface ArbiterMiddlewareOptions {
  /** The `Arbiter` whose rule, queue and `recordModelText` setting the calls go through. */
  client: ArbiterInstance;
  /** Experiment name or id. */
  experiment: string;
  /**
   * The user of every call through this middleware. By default the user of the enclosing
   * `client.withUser(user, fn)`; calls with neither pass through unrecorded.
   */
  user?: string;
  /**
   * Puts the prompt of the user's variant (`client.getPrompt`) in the system message, in place
   * of the call's own system messages. A user without a variant prompt (not enrolled, no
   * config yet, a variant without a prompt) keeps the call's system message. Default false.
   */
  useVariantPrompt?: boolean;
}

/** The language-model call options the middleware reads: the prompt (a message list). */
export interface LanguageModelCallOptionsLike {
  prompt: readonly unknown[];
}

/** The model being wrapped: its id names the model until the response names one. */
export interface LanguageModelLike {
  readonly modelId: string;
}

/**
 * A language-model middleware, written against the shapes common to the AI SDK's middleware
 * versions so that `wrapLanguageModel` takes it whatever its version.
 */
export interface ArbiterLanguageModelMiddleware {
  readonly specificationVersion: 'v3';
  transformParams?: <P extends LanguageModelCallOptionsLike>(options: {
    type: 'generate' | 'stream';
    params: P;
    model: LanguageModelLike;
  }) => PromiseLike<P>;
  wrapGenerate: <R>(options: WrapGenerateOptions<R>) => PromiseLike<R>;
  wrapStream: <S extends { stream: unknown }>(options: WrapStreamOptions<S>) => PromiseLike<S>;
}

export interface WrapGenerateOptions<R> {
  doGenerate: () => PromiseLike<R>;
  params: LanguageModelCallOptionsLike;
  model: LanguageModelLike;
}

export interface WrapStreamOptions<S> {
  doStream: () => PromiseLike<S>;
  params: LanguageModelCallOptionsLike;
  model: LanguageModelLike;
}

const SOURCE = 'arbiterMiddleware';

/**
 * Records each model call made through `wrapLanguageModel({ model, middleware })` as `wrap`
 * records a provider client's: an `exposure`, then a `model_call` with latency, tokens, model,
 * error, cost when the provider reports one, and the prompt and response text unless the client
 * has `recordModelText: false`. A stream is recorded when it ends (or is cancelled), with its
 * time to first token in `metadata.time_to_first_token_ms`. `generateText`, `streamText`,
 * structured output and tool loops (one `model_call` per step) all go through it.
 * Throws a TypeError when `client` is not an `Arbiter`.
 */
export function arbiterMiddleware(
  options: ArbiterMiddlewareOptions,
): ArbiterLanguageModelMiddleware {
  const { client, experiment } = options;
  const hooks = integrationHooks(client, SOURCE);
  const userOf = () => options.user ?? hooks.currentUser();

  const middleware: ArbiterLanguageModelMiddleware = {
    specificationVersion: 'v3',
    async wrapGenerate<R>({ doGenerate, params, model }: WrapGenerateOptions<R>): Promise<R> {
      const started = begin(hooks, experiment, userOf(), params, model);
      if (started === null) return doGenerate();
      const { call, measure } = started;
      const result = await failureRecorded(started, doGenerate);
      try {
        readGenerateResult(result, measure);
      } catch {}
      call.complete(measure);
      return result;
    },
    async wrapStream<S extends { stream: unknown }>({
      doStream,
      params,
      model,
    }: WrapStreamOptions<S>): Promise<S> {
      const started = begin(hooks, experiment, userOf(), params, model);
      if (started === null) return doStream();
      const { call, measure } = started;
      const result = await failureRecorded(started, doStream);
      if (!isReadableStream(result.stream)) {
        call.complete(measure);
        return result;
      }
      return { ...result, stream: tap(result.stream, call, measure) };
    },
  };
  if (options.useVariantPrompt === true)
    middleware.transformParams = variantPromptTransform(client, experiment, hooks, userOf);
  return middleware;
}

/** The variant's prompt put into the call's params; the params as they were when it fails. */
function variantPromptTransform(
  client: ArbiterMiddlewareOptions['client'],
  experiment: string,
  hooks: IntegrationHooks,
  userOf: () => string | undefined,
): NonNullable<ArbiterLanguageModelMiddleware['transformParams']> {
  return async ({ params }) => {
    const user = userOf();
    if (user === undefined) return params;
    try {
      return withVariantPrompt(client, experiment, user, params);
    } catch (err) {
      hooks.warnOnce(`${SOURCE}-prompt`, `${SOURCE}: variant prompt not applied: ${String(err)}`);
      return params;
    }
  };
}

/** A model call being recorded: the open `model_call` and what is measured of it so far. */
interface StartedCall {
  call: OpenModelCall;
  measure: CallMeasure;
}

function begin(
  hooks: IntegrationHooks,
  experiment: string,
  user: string | undefined,
  params: unknown,
  model: unknown,
): StartedCall | null {
  const call = hooks.open(experiment, user, SOURCE);
  if (call === null) return null;
  const measure: CallMeasure = {};
  try {
    readCall(params, model, measure);
  } catch {}
  return { call, measure };
}

/** What the model answers; a rejection is recorded as the call's error, then passed on. */
async function failureRecorded<T>(started: StartedCall, run: () => PromiseLike<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    started.call.fail(err, started.measure);
    throw err;
  }
}

/**
 * The same stream, observed as the AI SDK reads it: the first token, each part, and the end
 * (done, failed or cancelled), when the `model_call` is sent.
 */
function tap(
  stream: ReadableStream<unknown>,
  call: OpenModelCall,
  measure: CallMeasure,
): ReadableStream<unknown> {
  const reader = stream.getReader();
  return new ReadableStream<unknown>({
    async pull(controller) {
      let step: Awaited<ReturnType<typeof reader.read>>;
      try {
        step = await reader.read();
      } catch (err) {
        call.fail(err, measure);
        controller.error(err);
        return;
      }
      if (step.done) {
        call.complete(measure);
        controller.close();
        return;
      }
      try {
        if (readStreamPart(step.value, measure)) call.firstToken();
      } catch {}
      controller.enqueue(step.value);
    },
    cancel(reason) {
      call.complete(measure);
      return reader.cancel(reason);
    },
  });
}

function isReadableStream(value: unknown): value is ReadableStream<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { getReader?: unknown }).getReader === 'function'
  );
}

interface PromptMessage {
  role?: unknown;
  content?: unknown;
}

/** The call's prompt with the variant's prompt as its system message, when the variant has one. */
function withVariantPrompt<P extends LanguageModelCallOptionsLike>(
  client: ArbiterInstance,
  experiment: string,
  user: string,
  params: P,
): P {
  const messages = params.prompt as readonly PromptMessage[];
  const own = messages
    .filter((m) => m.role === 'system' && typeof m.content === 'string')
    .map((m) => m.content as string)
    .join('\n');
  const { prompt, fallback } = client.getPrompt(experiment, user, own);
  if (fallback) return params;
  return {
    ...params,
    prompt: [{ role: 'system', content: prompt }, ...messages.filter((m) => m.role !== 'system')],
  };
}
