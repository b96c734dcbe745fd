import { useState } from 'react';
import type { Experiment } from '../../api/client.ts';
import { useWhoami } from '../../auth/whoami.ts';
import { ActionDialog } from './ActionDialog.tsx';
import { ACTION_LABEL, type Action, actionOutcome, actionsFor } from './lifecycle.ts';
import { useTransition } from './queries.ts';
import { StatusBadge } from './StatusBadge.tsx';
import { StopDialog } from './StopDialog.tsx';

/**
 * The state badge and, for admins and owners, the transitions the state allows, each behind
 * its confirmation. Members see the state and no buttons (the server refuses them with 403),
 * as does anyone before whoami has answered.
 */
export function LifecycleBar({ experiment }: { experiment: Experiment }) {
  const me = useWhoami();
  const [open, setOpen] = useState<Action | null>(null);
  const canAct = me.data !== undefined && me.data.role !== 'member';
  const close = () => setOpen(null);
  return (
    <span className="lifecycle">
      <StatusBadge status={experiment.status} />
      {canAct
        ? actionsFor(experiment.status).map((a) => (
            <button key={a} type="button" onClick={() => setOpen(a)}>
              {ACTION_LABEL[a]}
            </button>
          ))
        : null}
      {open === 'stop' ? <StopDialog experiment={experiment} onClose={close} /> : null}
      {open !== null && open !== 'stop' ? (
        <TransitionDialog action={open} experiment={experiment} onClose={close} />
      ) : null}
    </span>
  );
}

function TransitionDialog({
  action,
  experiment,
  onClose,
}: {
  action: Exclude<Action, 'stop'>;
  experiment: Experiment;
  onClose: () => void;
}) {
  const transition = useTransition(experiment.id, action);
  return (
    <ActionDialog
      title={`${ACTION_LABEL[action]} ${experiment.name}?`}
      outcome={actionOutcome(action, experiment)}
      confirmLabel={`Yes, ${action}`}
      pending={transition.isPending}
      error={transition.error}
      onConfirm={() => transition.mutate(undefined, { onSuccess: onClose })}
      onClose={onClose}
    />
  );
}
