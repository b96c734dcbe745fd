import {
  type EvaluationContext,
  type JsonValue,
  OpenFeatureEventEmitter,
  type Provider,
  ProviderEvents,
  type ResolutionDetails,
  type TrackingEventDetails,
} from '@openfeature/server-sdk';
import { ProviderCore } from './provider-core.ts';
import type { FlagKind } from './resolve.ts';
import type { WatchEvent } from './watch.ts';

export interface ArbiterProviderOptions {
  /** Whether the provider's shutdown closes the client (flushing its queue). Default true. */
  closeClient?: boolean;
}

const EVENTS: Record<WatchEvent, ProviderEvents> = {
  PROVIDER_READY: ProviderEvents.Ready,
  PROVIDER_CONFIGURATION_CHANGED: ProviderEvents.ConfigurationChanged,
  PROVIDER_STALE: ProviderEvents.Stale,
  PROVIDER_ERROR: ProviderEvents.Error,
};

/**
 * The OpenFeature server provider of an `Arbiter` (`@arbiter/client`): flags resolve locally
 * from the polled config, the first evaluation of a user a day sends its exposure, and
 * `track` sends a business event. A flag key is an experiment's name or id (`EXPERIMENT`: the
 * variant key as a string, its variables as an object) or `EXPERIMENT:VARIABLE` (the value of
 * one variable). `context.targetingKey` is the user id; the other fields are the attributes
 * targeting reads.
 */
export class ArbiterProvider implements Provider {
  readonly metadata = { name: 'arbiter' } as const;
  readonly runsOn = 'server';
  readonly events = new OpenFeatureEventEmitter();
  readonly #core: ProviderCore;

  /** Throws a TypeError when `client` is not an `Arbiter`. */
  constructor(client: object, options: ArbiterProviderOptions = {}) {
    this.#core = new ProviderCore(client, 'ArbiterProvider', options.closeClient ?? true);
  }

  /** Waits for the first config load; rejects (the provider's ERROR state) when it failed. */
  initialize(): Promise<void> {
    return this.#core.initialize((event: WatchEvent, message?: string) =>
      this.events.emit(EVENTS[event], { message }),
    );
  }

  /** Stops watching the config and, unless told not to, closes the client: it flushes. */
  onClose(): Promise<void> {
    return this.#core.close();
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

  /** A business event named `trackingEventName`, in the experiment `details.experiment`. */
  track(
    trackingEventName: string,
    context: EvaluationContext,
    details: TrackingEventDetails,
  ): void {
    this.#core.track(trackingEventName, context, details);
  }

  #resolve<T>(
    flagKey: string,
    kind: FlagKind,
    defaultValue: T,
    context: EvaluationContext,
  ): Promise<ResolutionDetails<T>> {
    return Promise.resolve(this.#core.resolve(flagKey, kind, defaultValue, context));
  }
}
