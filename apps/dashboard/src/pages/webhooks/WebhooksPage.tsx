import { useWhoami } from '../../auth/whoami.ts';
import { Empty, Loading, QueryView } from '../../components/states.tsx';
import { CreateEndpointForm } from './CreateEndpointForm.tsx';
import { EndpointCard } from './EndpointCard.tsx';
import { useEndpoints } from './queries.ts';

/**
 * The org's outbound webhook endpoints. The routes are for admins and owners: a member is told
 * so and the page asks nothing (a 403 would only be noise), as whoami's role decides.
 */
export function WebhooksPage() {
  const me = useWhoami();
  const canManage = me.data !== undefined && me.data.role !== 'member';
  const endpoints = useEndpoints(canManage);
  return (
    <section>
      <h1>Webhooks</h1>
      <p className="hint">
        Arbiter POSTs each event, signed with the endpoint's own secret (Standard Webhooks:{' '}
        <code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code>), to
        each endpoint that asked for its type; a failed attempt is retried for about a day and a
        half.
      </p>
      {me.data === undefined ? <Loading what="your role" /> : null}
      {me.data?.role === 'member' ? (
        <p className="note" data-testid="webhooks-members">
          Webhook endpoints are managed by your org's admins and owners: as a member you cannot see
          or change them. Ask an admin to add the endpoint you need.
        </p>
      ) : null}
      {canManage ? (
        <>
          <QueryView query={endpoints} what="webhook endpoints">
            {(list) =>
              list.length === 0 ? (
                <Empty>No endpoints yet: add one below.</Empty>
              ) : (
                sortedForAttention(list).map((e) => <EndpointCard key={e.id} endpoint={e} />)
              )
            }
          </QueryView>
          <CreateEndpointForm />
        </>
      ) : null}
    </section>
  );
}

/** Endpoints the server disabled come first: their owners must see them. */
function sortedForAttention<T extends { disabled_reason: string | null }>(list: T[]): T[] {
  return [...list].sort(
    (a, b) => Number(b.disabled_reason !== null) - Number(a.disabled_reason !== null),
  );
}
