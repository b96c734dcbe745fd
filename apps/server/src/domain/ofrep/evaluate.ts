import { type AssignedExperiment, type AssignReason, assignUser } from '../experiments/assign.ts';
import type { OrgState } from '../org-state-cache.ts';
import type { AssignTallies } from '../targeting/assign-tallies.ts';

/**
 * The selector of a flag key that resolves the variant's key as a string
 * (docs/decisions/openfeature.md#flag-keys): `EXPERIMENT:$variant`.
 */
export const VARIANT_SELECTOR = '$variant';

/** OpenFeature's resolution reasons that an Arbiter evaluation gives. */
export type OfrepReason = 'SPLIT' | 'STATIC' | 'DEFAULT' | 'DISABLED';

/** As the providers name them (docs/decisions/openfeature.md#reasons). */
export interface OfrepMetadata {
  experimentId: string;
  configVersion: number;
}

/** A successful evaluation; without `value` the caller's code default stands. */
export interface OfrepSuccess {
  key: string;
  reason: OfrepReason;
  variant?: string;
  value?: unknown;
  metadata: OfrepMetadata;
}

export interface OfrepNotFound {
  key: string;
  errorCode: 'FLAG_NOT_FOUND';
  errorDetails: string;
}

/** The experiment exposure an evaluation records: an assigned user of a running experiment. */
export interface OfrepExposure {
  experimentId: string;
  variant: string;
}

/** One experiment evaluated for one user: every flag key of it resolves from this. */
export interface ExperimentEvaluation {
  experiment: AssignedExperiment;
  variant: string | null;
  reason: OfrepReason;
  metadata: OfrepMetadata;
  exposure: OfrepExposure | null;
}

/**
 * An excluded user's reason: the caller's default, which no rule chose, so DEFAULT whatever
 * excluded the user; a draft is disabled.
 */
const EXCLUDED: Record<AssignReason, OfrepReason> = {
  draft: 'DISABLED',
  held_out: 'DEFAULT',
  not_in_layer: 'DEFAULT',
  not_targeted: 'DEFAULT',
  not_covered: 'DEFAULT',
  not_enrolled: 'DEFAULT',
  unknown_experiment: 'DISABLED',
};

/** A flag key's experiment (name or id) and what of its variant it asks for. */
export function splitFlagKey(key: string): { experiment: string; selector: string | undefined } {
  const colon = key.indexOf(':');
  if (colon < 0) return { experiment: key, selector: undefined };
  return { experiment: key.slice(0, colon), selector: key.slice(colon + 1) };
}

/** The experiment an id or name addresses, decided for one user; undefined when none does. */
export function evaluateExperiment(
  tallies: AssignTallies,
  state: OrgState,
  idOrName: string,
  userId: string,
  attributes: Record<string, unknown>,
): ExperimentEvaluation | undefined {
  const assigned = assignUser(tallies, state, idOrName, userId, attributes);
  const experiment = assigned.experiment;
  // An archived experiment is absent from the config, so from the bulk route and the providers'
  // caches: not found here too, one answer whichever way a caller evaluates.
  if (experiment === undefined || experiment.archived) return undefined;
  const metadata = { experimentId: experiment.id, configVersion: state.configVersion };
  const variant = assigned.variant;
  if (variant === null) {
    const reason = EXCLUDED[assigned.reason ?? 'unknown_experiment'];
    return { experiment, variant, reason, metadata, exposure: null };
  }
  // A stopped experiment serves its variant to everyone eligible and records no exposure.
  const stopped = experiment.status === 'stopped';
  return {
    experiment,
    variant,
    reason: stopped ? 'STATIC' : 'SPLIT',
    metadata,
    exposure: stopped ? null : { experimentId: experiment.id, variant },
  };
}

/** What a selector reads of the variant: its variables object, its key, or one variable. */
function selectedValue(
  experiment: AssignedExperiment,
  variant: string,
  selector: string | undefined,
) {
  if (selector === VARIANT_SELECTOR) return variant;
  const variables = experiment.variants.find((v) => v.key === variant)?.variables ?? {};
  if (selector === undefined) return variables;
  return Object.hasOwn(variables, selector) ? variables[selector] : undefined;
}

/** The answer to one flag key of an evaluated experiment. */
export function flagResult(
  key: string,
  selector: string | undefined,
  evaluated: ExperimentEvaluation,
): OfrepSuccess {
  const { variant, reason, metadata } = evaluated;
  if (variant === null) return { key, reason, metadata };
  const value = selectedValue(evaluated.experiment, variant, selector);
  // A variable the user's variant lacks (or holds as null): the caller's default stands.
  if (value === undefined || value === null) return { key, reason: 'DEFAULT', variant, metadata };
  return { key, value, reason, variant, metadata };
}

export function flagNotFound(key: string): OfrepNotFound {
  return {
    key,
    errorCode: 'FLAG_NOT_FOUND',
    errorDetails: `No experiment of your org has the id or name "${splitFlagKey(key).experiment}"`,
  };
}

/** Every flag key of an experiment: the variables object, the variant key, each variable. */
export function flagKeysOf(experiment: AssignedExperiment): Array<[string, string | undefined]> {
  const names = new Set<string>();
  for (const v of experiment.variants)
    for (const name of Object.keys(v.variables ?? {}))
      if (name !== VARIANT_SELECTOR) names.add(name);
  const keys: Array<[string, string | undefined]> = [
    [experiment.name, undefined],
    [`${experiment.name}:${VARIANT_SELECTOR}`, VARIANT_SELECTOR],
  ];
  for (const name of [...names].sort()) keys.push([`${experiment.name}:${name}`, name]);
  return keys;
}
