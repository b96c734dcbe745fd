import type { OfflineRun } from '../../api/client.ts';

const LABELS: Record<OfflineRun['status'], string> = {
  running: 'running',
  scoring: 'scoring',
  complete: 'complete',
  failed: 'failed',
};

/** The run's status as a badge: failed in red, the others neutral (complete says nothing of quality). */
export function RunStatus({ run }: { run: OfflineRun }) {
  return (
    <span className={`badge${run.status === 'failed' ? ' worse' : ''}`} data-testid="status">
      {LABELS[run.status]}
    </span>
  );
}
