import type { ExperimentStatus, StopConclusion } from '../../../db/schema.ts';
import { DomainError } from '../../outcomes.ts';

export type { ExperimentStatus, StopConclusion };
export type Transition = 'start' | 'stop' | 'archive' | 'unarchive';

/** What each status may do next (docs/experiments-lifecycle.md). */
export const ALLOWED_TRANSITIONS: Record<ExperimentStatus, readonly Transition[]> = {
  draft: ['start', 'archive'],
  running: ['stop'],
  stopped: ['archive'],
  archived: ['unarchive'],
};

/** The status each transition leaves from; unarchive's destination is the row's archived_from. */
export const FROM: Record<Transition, readonly ExperimentStatus[]> = {
  start: ['draft'],
  stop: ['running'],
  archive: ['draft', 'stopped'],
  unarchive: ['archived'],
};

/** Statuses a PUT may change: a stopped or archived experiment's config is what was served. */
export const CHANGEABLE: readonly ExperimentStatus[] = ['draft', 'running'];

/**
 * The 409 of a refused transition (or of a PUT of a stopped or archived experiment): it names
 * the current status and what may be done from it.
 */
export function invalidTransition(current: ExperimentStatus, attempted: string): DomainError {
  const allowed = ALLOWED_TRANSITIONS[current];
  const next =
    allowed.length === 0
      ? 'no transition is allowed from it'
      : `from ${current} it may only ${allowed.join(' or ')}`;
  return new DomainError(
    'invalid-transition',
    `The experiment is ${current}: ${attempted} is not allowed; ${next}`,
    { current_status: current, allowed_transitions: [...allowed] },
  );
}

/** The stop as the Experiment representation shows it; null unless stopped (or archived from). */
export interface StopView {
  conclusion: StopConclusion;
  served_variant: string;
  reason: string | null;
  stopped_at: string;
  stopped_by: string;
}
