import {
  type EvaluationContext,
  type JsonValue,
  OpenFeatureEventEmitter,
  type Provider,
  type ProviderEvents,
  type ResolutionDetails,
} from '@openfeature/server-sdk';
import { ProviderBase, type ProviderOptions } from './provider-core.ts';

export type { ProviderOptions as ArbiterProviderOptions } from './provider-core.ts';

import type { FlagKind } from './resolve.ts';

/**
 * The OpenFeature server provider of an `Arbiter` (`@arbiter/client`): flags resolve locally
 * from the polled config, the first evaluation of a user a day sends its exposure, and
 * `track` sends a business event. A flag key is an experiment's name or id (`EXPERIMENT`: the
 * variant key as a string, its variables as an object) or `EXPERIMENT:VARIABLE` (the value of
 * one variable). `context.targetingKey` is the user id; the other fields are the attributes
 * targeting reads.
 */
export class ArbiterProvider extends ProviderBase<ProviderEvents> implements Provider {
  readonly metadata = { name: 'arbiter' } as const;
  readonly runsOn = 'server';
  readonly events = new OpenFeatureEventEmitter();

  /** Throws a TypeError when `client` is not an `Arbiter`. */
  constructor(client: object, options: ProviderOptions = {}) {
    super(client, 'ArbiterProvider', options);
  }

  resolveBooleanEvaluation(
    flagKey: string,
    defaultValue: boolean,
    context: EvaluationContext,
  ): Promise<ResolutionDetails<boolean>> {
    return this.#resolve(flagKey, 'boolean', defaultValue, context);
  }

  resolveStringEvaluation(
    flagKey: string,
    defaultValue: string,
    context: EvaluationContext,
  ): Promise<ResolutionDetails<string>> {
    return this.#resolve(flagKey, 'string', defaultValue, context);
  }

  resolveNumberEvaluation(
    flagKey: string,
    defaultValue: number,
    context: EvaluationContext,
  ): Promise<ResolutionDetails<number>> {
    return this.#resolve(flagKey, 'number', defaultValue, context);
  }

  resolveObjectEvaluation<T extends JsonValue>(
    flagKey: string,
    defaultValue: T,
    context: EvaluationContext,
  ): Promise<ResolutionDetails<T>> {
    return this.#resolve(flagKey, 'object', defaultValue, context);
  }

  #resolve<T>(
    flagKey: string,
    kind: FlagKind,
    defaultValue: T,
    context: EvaluationContext,
  ): Promise<ResolutionDetails<T>> {
    return Promise.resolve(this.resolve(flagKey, kind, defaultValue, context));
  }
}
