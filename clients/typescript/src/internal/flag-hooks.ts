import type { ConfigStore, ExperimentStatus } from './config-store.ts';
import type { PollOutcome } from './poller.ts';

/**
 * Where an `Arbiter` keeps what the OpenFeature providers (`@arbiter/openfeature-provider`,
 * `@arbiter/openfeature-web-provider`) need beyond `assign`: an experiment's id, state and
 * variables, the config version, and each poll's outcome. A registered symbol, as
 * `INTEGRATION_HOOKS`: the providers are bundles of their own.
 */
export const FLAG_HOOKS = Symbol.for('@arbiter/client.flag-hooks');

export type { ExperimentStatus, PollOutcome };

/** An experiment as the config has it: archived ones are not in the config. */
export interface FlagExperiment {
  readonly id: string;
  readonly name: string;
  readonly status: ExperimentStatus;
  /** The variables object of a variant; undefined for an unknown variant or none. */
  variables(variant: string): Readonly<Record<string, unknown>> | undefined;
}

export interface FlagHooks {
  /** Whether a config has been loaded. */
  loaded(): boolean;
  /** The loaded config's version; null before the first load. */
  version(): number | null;
  /** The experiment of a name or id, or undefined. */
  experiment(key: string): FlagExperiment | undefined;
  /** Calls `listener` after each poll of the config; returns the unsubscribe function. */
  onPoll(listener: (outcome: PollOutcome) => void): () => void;
}

/** The hooks of a client's store; `listeners` are what the poller's outcomes are given to. */
export function flagHooks(
  store: ConfigStore,
  listeners: Set<(outcome: PollOutcome) => void>,
): FlagHooks {
  return {
    loaded: () => store.loaded,
    version: () => store.version,
    experiment(key) {
      const entry = store.lookup(key);
      if (entry === undefined) return undefined;
      return {
        id: entry.id,
        name: entry.name,
        status: entry.status,
        variables(variant) {
          const variables = entry.variants.get(variant)?.variables;
          return typeof variables === 'object' && variables !== null && !Array.isArray(variables)
            ? (variables as Record<string, unknown>)
            : undefined;
        },
      };
    },
    onPoll(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
