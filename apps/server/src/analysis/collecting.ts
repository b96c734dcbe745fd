import type { Database } from '../db/connect.ts';
import type { Experiment } from '../domain/experiments/service.ts';
import { liveCounts } from '../domain/exposure-counts.ts';
import { AnalysisError } from './outcomes.ts';

export const MIN_EVENTS_SETTING = 'ARBITER_MIN_EVENTS_PER_ARM';

/**
 * The collecting answer that teaches: each arm's evaluated events so far (exposures from the
 * experiment's creation day on, as the analysis window counts them) against the threshold,
 * the setting that changes it, and what to do once every arm has enough.
 */
export async function collectingProblem(
  db: Database,
  experiment: Experiment,
  minEventsPerArm: number,
): Promise<AnalysisError> {
  const counts = await liveCounts(db, experiment.id, experiment.created_at.slice(0, 10));
  const arms = [
    ...new Set(
      experiment.allocation
        .map((slice) => slice.variant)
        .filter((v) => experiment.bucket_ranges.some((r) => r.variant === v)),
    ),
  ];
  const perArm = Object.fromEntries(arms.map((a) => [a, counts[a]?.exposures ?? 0]));
  const sofar = arms.map((a) => `${a} ${perArm[a]} of ${minEventsPerArm}`).join(', ');
  const today = new Date().toISOString().slice(0, 10);
  const next = Object.values(perArm).every((n) => n >= minEventsPerArm)
    ? `Every arm has enough now: the next pipeline run computes results (\`arbiter pipeline run --day ${today}\`, or POST /v1/experiments/${experiment.id}/analyze for a preliminary run).`
    : 'Live counts are on the live route meanwhile.';
  return new AnalysisError(
    'results-collecting',
    `Experiment ${experiment.name} is collecting: results appear once a pipeline run finds ${minEventsPerArm} evaluated events (exposures since the day it was created) in every arm. So far: ${sofar}. The threshold is the setting ${MIN_EVENTS_SETTING}. ${next}`,
    {
      events_per_arm: perArm,
      min_events_per_arm: minEventsPerArm,
      setting: MIN_EVENTS_SETTING,
    },
  );
}
