import { DataTable } from '../../components/DataTable.tsx';
import { ProblemView, QueryList } from '../../components/states.tsx';
import { utcMinute } from '../lifecycle/lifecycle.ts';
import { lastAnswer } from './last-answer.ts';
import { DELIVERIES_SHOWN, type Delivery, useDeliveries, useRetryDelivery } from './queries.ts';

const STATUS_CLASS = { delivered: 'badge better', failed: 'badge worse', pending: 'badge' };

function when(d: Delivery): string {
  if (d.finished_at !== null) return utcMinute(d.finished_at);
  if (d.next_attempt_at !== null) return `next attempt ${utcMinute(d.next_attempt_at)}`;
  return '';
}

/** The endpoint's newest deliveries: event, status, attempts, last answer, and a retry. */
export function DeliveriesTable({ endpointId }: { endpointId: string }) {
  const deliveries = useDeliveries(endpointId);
  const retry = useRetryDelivery(endpointId);
  return (
    <QueryList query={deliveries} what="deliveries" empty="No deliveries yet.">
      {(list) => (
        <>
          <DataTable
            label="Recent deliveries"
            caption={`Recent deliveries (the newest ${DELIVERIES_SHOWN})`}
            columns={['Event', 'Status', 'Attempts', 'Last answer', 'When', 'Resend']}
          >
            {list.map((d) => (
              <tr key={d.id} data-testid="delivery">
                <td>
                  <code>{d.event_type}</code>
                  <br />
                  <span className="hint">{d.event_id}</span>
                </td>
                <td>
                  <span className={STATUS_CLASS[d.status]}>{d.status}</span>
                </td>
                <td>{d.attempts}</td>
                <td>{lastAnswer(d)}</td>
                <td>{when(d)}</td>
                <td>
                  <button
                    type="button"
                    onClick={() => retry.mutate(d.id)}
                    disabled={retry.isPending}
                    aria-label={`Retry ${d.event_type} ${d.event_id}`}
                  >
                    Retry
                  </button>
                </td>
              </tr>
            ))}
          </DataTable>
          {retry.error ? <ProblemView error={retry.error} /> : null}
        </>
      )}
    </QueryList>
  );
}
