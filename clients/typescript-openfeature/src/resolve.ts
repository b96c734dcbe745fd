import type {
  ErrorCode,
  EvaluationContext,
  FlagMetadata,
  JsonValue,
  ResolutionDetails,
  TrackingEventDetails,
} from '@openfeature/core';

/**
 * How an Arbiter experiment answers an OpenFeature flag, shared by the server and the web
 * provider. Only types come from OpenFeature here: each provider is built on its own SDK, and
 * the error codes and reasons are the strings both SDKs define.
 */

/** The type an OpenFeature client asked for. */
export type FlagKind = 'boolean' | 'string' | 'number' | 'object';

/** What `@arbiter/client` keeps under `Symbol.for('@arbiter/client.flag-hooks')`. */
export interface FlagHooks {
  loaded(): boolean;
  version(): number | null;
  experiment(key: string): FlagExperiment | undefined;
  onPoll(listener: (outcome: 'changed' | 'unchanged' | 'failed') => void): () => void;
}

export interface FlagExperiment {
  readonly id: string;
  readonly name: string;
  readonly status: 'running' | 'draft' | 'stopped';
  variables(variant: string): Readonly<Record<string, unknown>> | undefined;
}

/** What the providers call on an `Arbiter` (Node's or the browser's). */
export interface ArbiterLike {
  assign(experiment: string, user: string, attributes?: Record<string, unknown>): string | null;
  track(
    event: 'business_event',
    payload: {
      experiment_id: string;
      user_id: string;
      business_metric?: string;
      value?: number;
      metadata?: Record<string, unknown>;
    },
  ): void;
  close(): Promise<void>;
}

const FLAG_HOOKS = Symbol.for('@arbiter/client.flag-hooks');
const INTEGRATION_HOOKS = Symbol.for('@arbiter/client.integration-hooks');

/** The flag hooks of an `Arbiter`, or a TypeError saying the object is not one. */
export function flagHooksOf(client: unknown, provider: string): FlagHooks {
  const hooks =
    typeof client === 'object' && client !== null
      ? (client as { [FLAG_HOOKS]?: FlagHooks })[FLAG_HOOKS]
      : undefined;
  if (hooks === undefined) {
    throw new TypeError(`${provider}: \`client\` must be an Arbiter from @arbiter/client`);
  }
  return hooks;
}

/** One log line per key, through the client's logger. */
export function warnOnceOf(client: unknown): (key: string, message: string) => void {
  const hooks = (client as { [INTEGRATION_HOOKS]?: { warnOnce(k: string, m: string): void } })[
    INTEGRATION_HOOKS
  ];
  return (key, message) => hooks?.warnOnce(key, message);
}

function failed<T>(value: T, code: string, message: string): ResolutionDetails<T> {
  return { value, reason: 'ERROR', errorCode: code as ErrorCode, errorMessage: message };
}

/** Whether `value` has the type an OpenFeature client asked for. */
function ofKind(value: unknown, kind: FlagKind): boolean {
  if (kind === 'object') return typeof value === 'object' && value !== null;
  return typeof value === kind;
}

/**
 * The targeting attributes of a context: every field but `targetingKey`, dates as ISO strings
 * (the wire has no date type).
 */
export function attributesOf(context: EvaluationContext): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(context)) {
    if (name === 'targetingKey') continue;
    attributes[name] = value instanceof Date ? value.toISOString() : value;
  }
  return attributes;
}

/**
 * Resolves `flagKey` (`EXPERIMENT` or `EXPERIMENT:VARIABLE`, by name or id) for the context's
 * user. The user's variant comes from `assign`, which sends the day's exposure as it always does.
 */
export function resolveFlag<T>(
  client: ArbiterLike,
  hooks: FlagHooks,
  flagKey: string,
  kind: FlagKind,
  defaultValue: T,
  context: EvaluationContext,
): ResolutionDetails<T> {
  if (!hooks.loaded()) {
    return failed(defaultValue, 'PROVIDER_NOT_READY', 'the Arbiter config is not loaded yet');
  }
  const colon = flagKey.indexOf(':');
  const experimentKey = colon < 0 ? flagKey : flagKey.slice(0, colon);
  const variable = colon < 0 ? undefined : flagKey.slice(colon + 1);
  const experiment = hooks.experiment(experimentKey);
  if (experiment === undefined) {
    return failed(defaultValue, 'FLAG_NOT_FOUND', `no experiment ${experimentKey} in the config`);
  }
  if (variable === undefined && (kind === 'boolean' || kind === 'number')) {
    return failed(
      defaultValue,
      'TYPE_MISMATCH',
      `${flagKey} is a string (the variant key) or an object (its variables), not a ${kind}`,
    );
  }
  const flagMetadata: FlagMetadata = {
    experimentId: experiment.id,
    configVersion: hooks.version() ?? 0,
  };
  if (experiment.status === 'draft')
    return { value: defaultValue, reason: 'DISABLED', flagMetadata };
  const user = context.targetingKey;
  if (typeof user !== 'string' || user === '') {
    return failed(
      defaultValue,
      'TARGETING_KEY_MISSING',
      'the context has no targetingKey (the user id)',
    );
  }
  const variant = client.assign(experiment.id, user, attributesOf(context));
  if (variant === null) return { value: defaultValue, reason: 'DEFAULT', flagMetadata };
  const reason = experiment.status === 'stopped' ? 'STATIC' : 'SPLIT';
  const variables = experiment.variables(variant) ?? {};
  if (variable === undefined) {
    const value = kind === 'string' ? variant : (variables as JsonValue);
    return { value: value as T, variant, reason, flagMetadata };
  }
  if (!Object.hasOwn(variables, variable)) {
    return { value: defaultValue, variant, reason: 'DEFAULT', flagMetadata };
  }
  const value = variables[variable];
  if (!ofKind(value, kind)) {
    return {
      ...failed(defaultValue, 'TYPE_MISMATCH', `${flagKey} is not a ${kind}`),
      variant,
      flagMetadata,
    };
  }
  return { value: value as T, variant, reason, flagMetadata };
}

/**
 * `track(name, context, details)`: a business event named `name` for the context's user in the
 * experiment `details.experiment` (name or id), with `details.value`; the other details go in
 * its metadata. Without a user or an experiment the event is dropped with one warning.
 */
export function trackEvent(
  client: ArbiterLike,
  warnOnce: (key: string, message: string) => void,
  name: string,
  context: EvaluationContext,
  details: TrackingEventDetails | undefined,
): void {
  const user = context.targetingKey;
  const { value, experiment, ...rest } = details ?? {};
  if (typeof user !== 'string' || user === '' || typeof experiment !== 'string') {
    warnOnce(
      'openfeature-track',
      `track(${name}): needs the context's targetingKey and details.experiment, event dropped`,
    );
    return;
  }
  client.track('business_event', {
    experiment_id: experiment,
    user_id: user,
    business_metric: name,
    ...(typeof value === 'number' ? { value } : {}),
    ...(Object.keys(rest).length > 0 ? { metadata: rest } : {}),
  });
}
