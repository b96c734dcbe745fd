import type { EvaluationContext, ResolutionDetails, TrackingEventDetails } from '@openfeature/core';
import {
  type ArbiterLike,
  type FlagHooks,
  type FlagKind,
  flagHooksOf,
  resolveFlag,
  trackEvent,
  warnOnceOf,
} from './resolve.ts';
import { type WatchEvent, watchConfig } from './watch.ts';

/** A provider's options, the same for the server and the web provider. */
export interface ProviderOptions {
  /** Whether the provider's shutdown closes the client (flushing its queue). Default true. */
  closeClient?: boolean;
}

/**
 * An OpenFeature SDK's event emitter. Both SDKs' provider events are string enums whose values
 * are the `WatchEvent` names, so a watched event is emitted as the SDK's own.
 */
interface ProviderEventEmitter<E extends string> {
  emit(event: E, details?: { message?: string }): void;
}

/**
 * What the server and the web provider do alike, whatever their SDK: hold the client, wait for
 * its first config, watch it for the provider's events, resolve, track and close. Each
 * provider keeps only its SDK's shape (promises or plain answers, its event emitter).
 */
export abstract class ProviderBase<E extends string> {
  abstract readonly events: ProviderEventEmitter<E>;
  readonly #client: ArbiterLike;
  readonly #hooks: FlagHooks;
  readonly #warnOnce: (key: string, message: string) => void;
  readonly #closeClient: boolean;
  #unwatch: (() => void) | null = null;

  /** Throws a TypeError, naming `provider`, when `client` is not an `Arbiter`. */
  constructor(client: object, provider: string, options: ProviderOptions) {
    this.#hooks = flagHooksOf(client, provider);
    this.#client = client as ArbiterLike;
    this.#warnOnce = warnOnceOf(client);
    this.#closeClient = options.closeClient ?? true;
  }

  /** Waits for the first config load; rejects (the provider's ERROR state) when it failed. */
  async initialize(): Promise<void> {
    await (this.#client as { ready?: () => Promise<boolean> }).ready?.();
    this.#unwatch ??= watchConfig(this.#hooks, (event: WatchEvent, message?: string) =>
      this.events.emit(event as E, { message }),
    );
    if (!this.#hooks.loaded()) throw new Error('the Arbiter config could not be loaded');
  }

  /** Stops watching the config and, unless told not to, closes the client: it flushes. */
  async onClose(): Promise<void> {
    this.#unwatch?.();
    this.#unwatch = null;
    if (this.#closeClient) await this.#client.close();
  }

  /** A business event named `trackingEventName`, in the experiment `details.experiment`. */
  track(
    trackingEventName: string,
    context: EvaluationContext,
    details: TrackingEventDetails,
  ): void {
    trackEvent(this.#client, this.#warnOnce, trackingEventName, context, details);
  }

  protected resolve<T>(
    flagKey: string,
    kind: FlagKind,
    defaultValue: T,
    context: EvaluationContext,
  ): ResolutionDetails<T> {
    return resolveFlag(this.#client, this.#hooks, flagKey, kind, defaultValue, context);
  }
}
