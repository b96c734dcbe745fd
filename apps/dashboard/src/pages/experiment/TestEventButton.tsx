import { api, ok } from '../../api/client.ts';
import { useRefreshingMutation } from '../../api/refreshing-mutation.ts';
import { ProblemView } from '../../components/states.tsx';
import { experimentKeys } from '../experiments/queries.ts';

/** One real exposure on the control arm through the ingest queue; 5 per experiment per hour. */
export function TestEventButton({ id }: { id: string }) {
  const send = useRefreshingMutation(
    () => ok(api.POST('/v1/experiments/{id}/test-event', { params: { path: { id } } })),
    experimentKeys.live(id),
  );
  return (
    <div className="test-event">
      <button type="button" onClick={() => send.mutate()} disabled={send.isPending}>
        Send test event
      </button>
      {send.data ? (
        <span role="status">
          Test exposure sent as {send.data.user_id} ({send.data.variant ?? 'not enrolled'}).
        </span>
      ) : null}
      {send.error ? <ProblemView error={send.error} /> : null}
    </div>
  );
}
