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
import {
  type ArbiterLike,
  type FlagHooks,
  flagHooksOf,
  resolveFlag,
  trackEvent,
  warnOnceOf,
} from '../../typescript-openfeature/src/resolve.ts';
import { type WatchEvent, watchConfig } from '../../typescript-openfeature/src/watch.ts';

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
  readonly #client: ArbiterLike;
  readonly #hooks: FlagHooks;
  readonly #warnOnce: (key: string, message: string) => void;
  readonly #closeClient: boolean;
  #unwatch: (() => void) | null = null;

  /** Throws a TypeError when `client` is not an `Arbiter`. */
  constructor(client: object, options: ArbiterWebProviderOptions = {}) {
    this.#hooks = flagHooksOf(client, 'ArbiterWebProvider');
    this.#client = client as ArbiterLike;
    this.#warnOnce = warnOnceOf(client);
    this.#closeClient = options.closeClient ?? true;
  }

  /** Waits for the first config load; rejects (the provider's ERROR state) when it failed. */
  async initialize(): Promise<void> {
    await (this.#client as { ready?: () => Promise<boolean> }).ready?.();
    this.#unwatch ??= watchConfig(this.#hooks, (event, message) =>
      this.events.emit(EVENTS[event], { message }),
    );
    if (!this.#hooks.loaded()) throw new Error('the Arbiter config could not be loaded');
  }

  /** Nothing to fetch: evaluation is local, the next resolution reads the new context. */
  onContextChange(): void {}

  async onClose(): Promise<void> {
    this.#unwatch?.();
    this.#unwatch = null;
    if (this.#closeClient) await this.#client.close();
  }

  resolveBooleanEvaluation(
    flagKey: string,
    defaultValue: boolean,
    context: EvaluationContext,
  ): ResolutionDetails<boolean> {
    return resolveFlag(this.#client, this.#hooks, flagKey, 'boolean', defaultValue, context);
  }

  resolveStringEvaluation(
    flagKey: string,
    defaultValue: string,
    context: EvaluationContext,
  ): ResolutionDetails<string> {
    return resolveFlag(this.#client, this.#hooks, flagKey, 'string', defaultValue, context);
  }

  resolveNumberEvaluation(
    flagKey: string,
    defaultValue: number,
    context: EvaluationContext,
  ): ResolutionDetails<number> {
    return resolveFlag(this.#client, this.#hooks, flagKey, 'number', defaultValue, context);
  }

  resolveObjectEvaluation<T extends JsonValue>(
    flagKey: string,
    defaultValue: T,
    context: EvaluationContext,
  ): ResolutionDetails<T> {
    return resolveFlag(this.#client, this.#hooks, flagKey, 'object', defaultValue, context);
  }

  /** A business event named `trackingEventName`, in the experiment `details.experiment`. */
  track(
    trackingEventName: string,
    context: EvaluationContext,
    details: TrackingEventDetails,
  ): void {
    trackEvent(this.#client, this.#warnOnce, trackingEventName, context, details);
  }
}
