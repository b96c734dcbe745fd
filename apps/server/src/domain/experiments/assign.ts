import type { OrgState } from '../org-state-cache.ts';
import type { AssignTallies } from '../targeting/assign-tallies.ts';
import { eligibility, type IneligibleReason } from './eligibility.ts';

/** An experiment as the org state holds it, under its id and its name. */
export type AssignedExperiment = OrgState['lookup'] extends Map<string, infer E> ? E : never;

/** Why a user gets no variant, as `POST /v1/assign` says it. */
export type AssignReason = IneligibleReason | 'unknown_experiment';

export interface Assignment {
  /** The experiment the id or name addresses; undefined when none (or a holdout's row) does. */
  experiment: AssignedExperiment | undefined;
  variant: string | null;
  reason?: AssignReason;
}

/** Whether a decision got as far as the targeting: past the holdouts and the layer. */
const REACHED_TARGETING = new Set([undefined, 'not_targeted', 'not_covered', 'not_enrolled']);

/**
 * The one server-side assignment, `POST /v1/assign`'s and OFREP's: the user's variant of the
 * experiment an id or name addresses, from the org's cached state, with the targeting tally of
 * a check that reached the targeting. A holdout is stored as an experiment so its exposures are
 * ingested and analysed as one, but it is not assigned to; an archived experiment is absent
 * from the config, unknown to assign as to the clients (`experiment` still names it).
 */
export function assignUser(
  tallies: AssignTallies,
  state: OrgState,
  idOrName: string,
  userId: string,
  attributes: Record<string, unknown>,
): Assignment {
  const found = state.lookup.get(idOrName);
  const experiment = found?.kind === 'experiment' ? found : undefined;
  if (experiment === undefined || experiment.archived)
    return { experiment, variant: null, reason: 'unknown_experiment' };
  const decided = eligibility(experiment, userId, attributes, state.world);
  if (experiment.targeting !== undefined && REACHED_TARGETING.has(decided.reason))
    tallies.reached(state.orgId, experiment.id, userId, decided.reason !== 'not_targeted');
  return decided.reason === undefined
    ? { experiment, variant: decided.variant }
    : { experiment, variant: null, reason: decided.reason };
}
