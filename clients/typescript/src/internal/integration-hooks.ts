import type { CallMeasure } from './model-call-measure.ts';

/**
 * Where an `Arbiter` keeps what the framework integrations (`@arbiter/client/ai-sdk`,
 * `@arbiter/client/langchain`) need and the public surface does not show. A registered symbol:
 * each entry point is its own bundle, so a module-level symbol would differ between them.
 */
export const INTEGRATION_HOOKS = Symbol.for('@arbiter/client.integration-hooks');

export interface IntegrationHooks {
  /** The user of the innermost `withUser`, if any. */
  currentUser(): string | undefined;
  /**
   * Records the exposure of a model call now and returns its `model_call`, to be completed
   * once; null when the call is not recorded (no user, user not enrolled, unknown experiment).
   * `source` names the integration in the one warning about a missing user.
   */
  open(experiment: string, user: string | undefined, source: string): OpenModelCall | null;
  /** One log line per `key`. */
  warnOnce(key: string, message: string): void;
}

/** A model call under way: its latency runs from `open` until `complete` or `fail`. */
export interface OpenModelCall {
  readonly variant: string | null;
  /** Notes the first streamed token (only the first call counts). */
  firstToken(): void;
  /** Sends the `model_call` with what was measured; later calls do nothing. */
  complete(measure: CallMeasure): void;
  /** Sends the `model_call` with the error (and what was measured until then). */
  fail(err: unknown, measure?: CallMeasure): void;
}

/**
 * The hooks of an `Arbiter`, or a TypeError saying the object is not one. Not an
 * `ArbiterError`: each subpath bundle would carry its own copy of that class, which
 * `instanceof` against the main entry's would not match.
 */
export function integrationHooks(client: unknown, integration: string): IntegrationHooks {
  const hooks =
    typeof client === 'object' && client !== null
      ? (client as { [INTEGRATION_HOOKS]?: IntegrationHooks })[INTEGRATION_HOOKS]
      : undefined;
  if (hooks === undefined) {
    throw new TypeError(`${integration}: \`client\` must be an Arbiter from @arbiter/client`);
  }
  return hooks;
}
