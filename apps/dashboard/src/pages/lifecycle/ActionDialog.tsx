import { type ReactNode, useEffect, useId, useRef } from 'react';
import { ProblemView } from '../../components/states.tsx';

/**
 * A modal confirmation (the browser's own dialog: focus kept inside, Escape cancels) that says
 * what users will get before anything changes. A refusal (the server's problem) is shown in it
 * and changes nothing; the dialog stays open so the choice can be changed or cancelled.
 */
export function ActionDialog({
  title,
  outcome,
  confirmLabel,
  canConfirm = true,
  pending,
  error,
  onConfirm,
  onClose,
  children,
}: {
  title: string;
  outcome: string;
  confirmLabel: string;
  canConfirm?: boolean;
  pending: boolean;
  error: unknown;
  onConfirm: () => void;
  onClose: () => void;
  children?: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    dialog?.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog ref={ref} className="action-dialog" aria-labelledby={titleId} onClose={onClose}>
      <h2 id={titleId}>{title}</h2>
      {children}
      <p className="outcome" data-testid="what-users-get">
        <strong>What users get: </strong>
        {outcome}
      </p>
      {error ? <ProblemView error={error} /> : null}
      <div className="dialog-buttons">
        <button
          type="button"
          className="danger"
          onClick={onConfirm}
          disabled={!canConfirm || pending}
        >
          {confirmLabel}
        </button>
        <button type="button" onClick={() => ref.current?.close()}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
