import {
  type EvaluationContext,
  type JsonValue,
  OpenFeatureEventEmitter,
  type Provider,
  type ProviderEmittableEvents,
  ProviderEvents,
  type ResolutionDetails,
  type TrackingEventDetails,
} from '@openfeature/web-sdk';
import { ProviderCore } from '../../typescript-openfeature/src/provider-core.ts';
import type { WatchEvent } from '../../typescript-openfeature/src/watch.ts';

export interface ArbiterWebProviderOptions {
  /** Whether the provider's shutdown closes the client (flushing its queue). Default true. */
  closeClient?: boolean;
}

const EVENTS: Record<WatchEvent, ProviderEmittableEvents> = {
  PROVIDER_READY: ProviderEvents.Ready,
  PROVIDER_CONFIGURATION_CHANGED: ProviderEvents.ConfigurationChanged,
  PROVIDER_STALE: ProviderEvents.Stale,
  PROVIDER_ERROR: ProviderEvents.Error,
};

/**
 * The OpenFeature web provider of an `Arbiter` (the browser build of `@arbiter/client`): the
 * web SDK evaluates synchronously against the context set with `OpenFeature.setContext`, and the
 * provider answers from the client's polled config in memory. Flag keys, reasons and errors are
 * the server provider's (`@arbiter/openfeature-provider`).
 */
export class ArbiterWebProvider implements Provider {
  readonly metadata = { name: 'arbiter-web' } as const;
  readonly runsOn = 'client';
  readonly events = new OpenFeatureEventEmitter();
  readonly #core: ProviderCore;

  /** Throws a TypeError when `client` is not an `Arbiter`. */
  constructor(client: object, options: ArbiterWebProviderOptions = {}) {
    this.#core = new ProviderCore(client, 'ArbiterWebProvider', options.closeClient ?? true);
  }

  /** Waits for the first config load; rejects (the provider's ERROR state) when it failed. */
  initialize(): Promise<void> {
    return this.#core.initialize((event: WatchEvent, message?: string) =>
      this.events.emit(EVENTS[event], { message }),
    );
  }

  /** Nothing to fetch: evaluation is local, the next resolution reads the new context. */
  onContextChange(): void {}

  onClose(): Promise<void> {
    return this.#core.close();
  }

  resolveBooleanEvaluation(
    flagKey: string,
    defaultValue: boolean,
    context: EvaluationContext,
  ): ResolutionDetails<boolean> {
    return this.#core.resolve(flagKey, 'boolean', defaultValue, context);
  }

  resolveStringEvaluation(
    flagKey: string,
    defaultValue: string,
    context: EvaluationContext,
  ): ResolutionDetails<string> {
    return this.#core.resolve(flagKey, 'string', defaultValue, context);
  }

  resolveNumberEvaluation(
    flagKey: string,
    defaultValue: number,
    context: EvaluationContext,
  ): ResolutionDetails<number> {
    return this.#core.resolve(flagKey, 'number', defaultValue, context);
  }

  resolveObjectEvaluation<T extends JsonValue>(
    flagKey: string,
    defaultValue: T,
    context: EvaluationContext,
  ): ResolutionDetails<T> {
    return this.#core.resolve(flagKey, 'object', defaultValue, context);
  }

  /** A business event named `trackingEventName`, in the experiment `details.experiment`. */
  track(
    trackingEventName: string,
    context: EvaluationContext,
    details: TrackingEventDetails,
  ): void {
    this.#core.track(trackingEventName, context, details);
  }
}
