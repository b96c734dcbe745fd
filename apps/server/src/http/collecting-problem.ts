import type { Collecting, ResultsOutcome } from '../analysis/results/results.ts';
import type { Results } from '../analysis/results/results-schema.ts';
import { ProblemError } from './problems.ts';

const MIN_EVENTS_SETTING = 'ARBITER_MIN_EVENTS_PER_ARM';

/** What the results belong to: an experiment, or a holdout (stored as a hidden experiment row). */
export interface CollectingSubject {
  kind: 'experiment' | 'holdout';
  name: string;
}

/**
 * The one builder of the collecting answer. The default view teaches: each arm's evaluated
 * events so far against the threshold, the setting that changes it, and what to do once every
 * arm has enough; a run asked for by label points at the labels that exist. A holdout has no
 * live route and no manual analysis, so its answer names only the pipeline run.
 */
export function collectingProblem(
  c: Collecting,
  subject: CollectingSubject = { kind: 'experiment', name: c.experimentName },
): ProblemError {
  if (c.label !== null || c.eventsPerArm === null)
    return new ProblemError(
      'results-collecting',
      `No computed results for ${c.label}; see available_days of the default view`,
    );
  const perArm = c.eventsPerArm;
  const min = c.minEventsPerArm;
  const sofar = Object.entries(perArm)
    .map(([arm, n]) => `${arm} ${n} of ${min}`)
    .join(', ');
  const holdout = subject.kind === 'holdout';
  const run = `\`arbiter pipeline run --day ${c.today}\``;
  const next = Object.values(perArm).every((n) => n >= min)
    ? holdout
      ? `Every arm has enough now: the next pipeline run computes results (${run}).`
      : `Every arm has enough now: the next pipeline run computes results (${run}, or POST /v1/experiments/${c.experimentId}/analyze for a preliminary run).`
    : holdout
      ? 'The counts grow with each nightly run.'
      : 'Live counts are on the live route meanwhile.';
  return new ProblemError(
    'results-collecting',
    `${holdout ? 'Holdout' : 'Experiment'} ${subject.name} is collecting: results appear once a pipeline run finds ${min} evaluated events (exposures since the day it was created) in every arm. So far: ${sofar}. The threshold is the setting ${MIN_EVENTS_SETTING}. ${next}${estimateSentences(c)}`,
    {
      events_per_arm: perArm,
      min_events_per_arm: min,
      setting: MIN_EVENTS_SETTING,
      primary_metrics: c.estimates,
    },
  );
}

/** " On fast, revenue needs about 880 users per arm to detect a 5% change (about 6 more days …)." */
function estimateSentences(c: Collecting): string {
  return c.estimates
    .filter((e) => e.users_needed_per_arm !== null)
    .map((e) => {
      const days =
        e.days_to_decision === null
          ? 'no user arrived in the last 7 days'
          : `about ${e.days_to_decision} more day${e.days_to_decision === 1 ? '' : 's'} at the last 7 days’ rate`;
      return ` On ${e.treatment}, ${e.metric} needs about ${e.users_needed_per_arm} users per arm to detect a ${Number((e.mde * 100).toPrecision(3))}% change (${days}).`;
    })
    .join('');
}

/** The run of a results outcome, or its collecting problem thrown. */
export function resultsOrProblem(outcome: ResultsOutcome, subject?: CollectingSubject): Results {
  if (outcome.kind === 'collecting') throw collectingProblem(outcome, subject);
  return outcome.results;
}
