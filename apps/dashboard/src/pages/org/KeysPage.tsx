import { useMutation, useQuery } from '@tanstack/react-query';
import { api, ok } from '../../api/client.ts';
import { useRefreshingMutation } from '../../api/refreshing-mutation.ts';
import { ConfirmButton } from '../../components/ConfirmButton.tsx';
import { ProblemView, QueryView } from '../../components/states.tsx';
import { WebhookSecretCard } from './WebhookSecretCard.tsx';

const SCOPES = ['publishable', 'secret'] as const;
type Scope = (typeof SCOPES)[number];

export function KeysPage() {
  const keys = useQuery({ queryKey: ['keys'], queryFn: () => ok(api.GET('/v1/keys')) });
  return (
    <section>
      <h1>Keys</h1>
      <p className="hint">
        Publishable keys (<code>svc_pk_</code>) go in client code; secret keys (<code>svc_sk_</code>
        ) stay on servers. One active key per scope: rotating invalidates the previous one at once.
      </p>
      <QueryView query={keys} what="keys">
        {(list) => (
          <div className="cards">
            {SCOPES.map((scope) => (
              <KeyCard key={scope} scope={scope} summary={list.find((k) => k.scope === scope)} />
            ))}
          </div>
        )}
      </QueryView>
      <WebhookSecretCard />
    </section>
  );
}

function KeyCard({
  scope,
  summary,
}: {
  scope: Scope;
  summary: { hint: string; created_at: string; revealable: boolean } | undefined;
}) {
  const rotate = useRefreshingMutation(
    () => ok(api.POST('/v1/keys', { body: { scope } })),
    ['keys'],
  );
  const reveal = useMutation({
    mutationFn: () => ok(api.GET('/v1/keys/{scope}/reveal', { params: { path: { scope } } })),
  });
  const shown = rotate.data?.key ?? (reveal.data as { key?: string } | undefined)?.key;
  return (
    <section className="card" aria-label={`${scope} key`}>
      <h2>{scope === 'publishable' ? 'Publishable key' : 'Secret key'}</h2>
      {summary ? (
        <p>
          <code>{summary.hint}</code> · created {new Date(summary.created_at).toLocaleString()}
        </p>
      ) : (
        <p className="empty">No active {scope} key.</p>
      )}
      {shown ? (
        <p className="secret" role="status">
          Shown once — copy it now: <code data-testid={`${scope}-key`}>{shown}</code>
        </p>
      ) : null}
      <div className="actions">
        <ConfirmButton
          label={summary ? `Rotate ${scope} key` : `Create ${scope} key`}
          question={summary ? 'The current key stops working at once.' : `Create a ${scope} key?`}
          confirmLabel={summary ? 'Yes, rotate' : 'Yes, create'}
          onConfirm={() => rotate.mutate()}
        />
        {summary ? (
          <ConfirmButton
            label="Reveal"
            question={`Show the ${scope} key? This is recorded in the audit log.`}
            confirmLabel="Yes, reveal"
            onConfirm={() => reveal.mutate()}
            disabled={!summary.revealable}
          />
        ) : null}
      </div>
      {summary && !summary.revealable ? (
        <p className="hint">This key predates raw-key storage: rotate it to make it revealable.</p>
      ) : null}
      {rotate.error ? <ProblemView error={rotate.error} /> : null}
      {reveal.error ? <ProblemView error={reveal.error} /> : null}
    </section>
  );
}
