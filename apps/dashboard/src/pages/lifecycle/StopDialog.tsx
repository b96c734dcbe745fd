import { useState } from 'react';
import type { Experiment, SummaryEntry } from '../../api/client.ts';
import { Loading } from '../../components/states.tsx';
import { useResultsSummary } from '../experiments/queries.ts';
import { ActionDialog } from './ActionDialog.tsx';
import {
  controlOf,
  promptOf,
  releaseOutcome,
  servedBy,
  stopDefault,
  stopOutcome,
} from './lifecycle.ts';
import { useTransition } from './queries.ts';
import { StopFields, type StopFieldsChoice } from './StopFields.tsx';

/**
 * Stop, with its conclusion. The form starts from the last run (the summary's entry, the run
 * the results page shows by default): Ship with its recommended treatment when it says ship,
 * nothing chosen otherwise. The confirmation says which variant every eligible user gets and,
 * when the shipped variant is a stored prompt version, that it becomes production (unless the
 * caller unticks the release).
 */
export function StopDialog({
  experiment,
  onClose,
}: {
  experiment: Experiment;
  onClose: () => void;
}) {
  const summary = useResultsSummary();
  if (summary.isPending) return <Loading what="the last run" />;
  const last = summary.data?.find((r) => r.experiment_id === experiment.id);
  return <StopForm experiment={experiment} last={last} onClose={onClose} />;
}

function StopForm({
  experiment,
  last,
  onClose,
}: {
  experiment: Experiment;
  last: SummaryEntry | undefined;
  onClose: () => void;
}) {
  const [choice, setChoice] = useState(() => ({
    ...stopDefault(last),
    reason: '',
    releasePrompt: true,
  }));
  const stop = useTransition(experiment.id, 'stop');
  const { conclusion, variant } = choice;
  const ready = conclusion !== '' && (conclusion !== 'ship' || variant !== '');
  const served = ready ? servedBy(conclusion, variant, controlOf(experiment)) : null;
  const prompt = conclusion === 'ship' ? promptOf(experiment, variant) : null;
  const release = prompt === null ? '' : ` ${releaseOutcome(prompt, choice.releasePrompt)}`;
  return (
    <ActionDialog
      title={`Stop ${experiment.name}?`}
      outcome={
        served === null
          ? 'Choose a conclusion (and the variant to ship).'
          : `${stopOutcome(served)}${release}`
      }
      confirmLabel={served === null ? 'Stop' : `Yes, stop and serve ${served}`}
      canConfirm={ready}
      pending={stop.isPending}
      error={stop.error}
      onConfirm={() => {
        if (conclusion !== '') stop.mutate({ ...choice, conclusion }, { onSuccess: onClose });
      }}
      onClose={onClose}
    >
      <StopFields
        experiment={experiment}
        recommended={stopDefault(last).variant}
        choice={choice}
        prompt={prompt}
        onChange={(c: Partial<StopFieldsChoice>) => setChoice((old) => ({ ...old, ...c }))}
      />
    </ActionDialog>
  );
}
