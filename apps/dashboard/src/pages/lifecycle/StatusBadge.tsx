import { STATUS_LABEL, type Status } from './lifecycle.ts';

/** The experiment's lifecycle state, the same badge on the list and on its page. */
export function StatusBadge({ status }: { status: Status }) {
  return (
    <span className={`badge status-${status}`} data-testid="status">
      {STATUS_LABEL[status]}
    </span>
  );
}
