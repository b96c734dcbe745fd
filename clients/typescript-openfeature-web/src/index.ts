import {
  type EvaluationContext,
  type JsonValue,
  OpenFeatureEventEmitter,
  type Provider,
  type ProviderEmittableEvents,
  type ResolutionDetails,
} from '@openfeature/web-sdk';
import {
  ProviderBase,
  type ProviderOptions,
} from '../../typescript-openfeature/src/provider-core.ts';

export type { ProviderOptions as ArbiterWebProviderOptions } from '../../typescript-openfeature/src/provider-core.ts';

/**
 * The OpenFeature web provider of an `Arbiter` (the browser build of `@arbiter/client`): the
 * web SDK evaluates synchronously against the context set with `OpenFeature.setContext`, and the
 * provider answers from the client's polled config in memory. Flag keys, reasons and errors are
 * the server provider's (`@arbiter/openfeature-provider`).
 */
export class ArbiterWebProvider extends ProviderBase<ProviderEmittableEvents> implements Provider {
  readonly metadata = { name: 'arbiter-web' } as const;
  readonly runsOn = 'client';
  readonly events = new OpenFeatureEventEmitter();

  /** Throws a TypeError when `client` is not an `Arbiter`. */
  constructor(client: object, options: ProviderOptions = {}) {
    super(client, 'ArbiterWebProvider', options);
  }

  /** Nothing to fetch: evaluation is local, the next resolution reads the new context. */
  onContextChange(): void {}

  resolveBooleanEvaluation(
    flagKey: string,
    defaultValue: boolean,
    context: EvaluationContext,
  ): ResolutionDetails<boolean> {
    return this.resolve(flagKey, 'boolean', defaultValue, context);
  }

  resolveStringEvaluation(
    flagKey: string,
    defaultValue: string,
    context: EvaluationContext,
  ): ResolutionDetails<string> {
    return this.resolve(flagKey, 'string', defaultValue, context);
  }

  resolveNumberEvaluation(
    flagKey: string,
    defaultValue: number,
    context: EvaluationContext,
  ): ResolutionDetails<number> {
    return this.resolve(flagKey, 'number', defaultValue, context);
  }

  resolveObjectEvaluation<T extends JsonValue>(
    flagKey: string,
    defaultValue: T,
    context: EvaluationContext,
  ): ResolutionDetails<T> {
    return this.resolve(flagKey, 'object', defaultValue, context);
  }
}
