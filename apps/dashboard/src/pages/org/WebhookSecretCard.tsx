import { useQuery } from '@tanstack/react-query';
import { api, ok } from '../../api/client.ts';
import { useRefreshingMutation } from '../../api/refreshing-mutation.ts';
import { ConfirmButton } from '../../components/ConfirmButton.tsx';
import { ProblemView, QueryView } from '../../components/states.tsx';

/** The business-event signing secret: status only, a new one shown once on rotation. */
export function WebhookSecretCard() {
  const status = useQuery({
    queryKey: ['webhook-secret'],
    queryFn: () => ok(api.GET('/v1/webhook-secrets')),
  });
  const rotate = useRefreshingMutation(
    () => ok(api.POST('/v1/webhook-secrets')),
    ['webhook-secret'],
  );
  return (
    <section className="card" aria-label="Webhook secret">
      <h2>Business-event webhook secret</h2>
      <QueryView query={status} what="webhook secret">
        {(s) =>
          s.configured ? (
            <p>Configured{s.created_at ? ` on ${new Date(s.created_at).toLocaleString()}` : ''}.</p>
          ) : (
            <p className="empty">No secret yet: signed business events are refused.</p>
          )
        }
      </QueryView>
      {rotate.data ? (
        <p className="secret" role="status">
          Shown once — copy it now: <code>{rotate.data.secret}</code>
        </p>
      ) : null}
      <ConfirmButton
        label={status.data?.configured ? 'Rotate webhook secret' : 'Create webhook secret'}
        question="The previous secret stops working at once."
        confirmLabel="Yes, make a new secret"
        onConfirm={() => rotate.mutate()}
      />
      {rotate.error ? <ProblemView error={rotate.error} /> : null}
    </section>
  );
}
