import { useSearchParams } from 'react-router';
import type { InboxItem } from '../../api/client.ts';
import { Empty, QueryView } from '../../components/states.tsx';
import { AdminPage } from './AdminTabs.tsx';
import { useInbox } from './queries.ts';

/** Contact messages and every org's feedback, newest first; the page cursor lives in the URL. */
export function InboxPage() {
  const [params, setParams] = useSearchParams();
  const cursor = params.get('cursor') ?? undefined;
  const inbox = useInbox(cursor);
  return (
    <AdminPage title="Inbox">
      <QueryView query={inbox} what="the inbox">
        {(page) => (
          <>
            {page.items.length === 0 ? (
              <Empty>{cursor ? 'No older messages.' : 'No messages yet.'}</Empty>
            ) : (
              <ol className="inbox" aria-label="Messages, newest first">
                {page.items.map((item) => (
                  <InboxEntry key={`${item.source}-${item.id}`} item={item} />
                ))}
              </ol>
            )}
            <div className="actions">
              {cursor ? (
                <button type="button" onClick={() => setParams({})}>
                  Newest
                </button>
              ) : null}
              {page.next_cursor ? (
                <button
                  type="button"
                  onClick={() => setParams({ cursor: page.next_cursor as string })}
                >
                  Older messages
                </button>
              ) : null}
            </div>
          </>
        )}
      </QueryView>
    </AdminPage>
  );
}

function InboxEntry({ item }: { item: InboxItem }) {
  return (
    <li className="card" data-testid="inbox-item">
      <p className="hint">
        <span className="badge">
          {item.source === 'contact' ? `Contact · ${item.kind}` : `Feedback · ${item.category}`}
        </span>{' '}
        {new Date(item.created_at).toLocaleString()} · {from(item)}
      </p>
      <p>{item.message}</p>
    </li>
  );
}

function from(item: InboxItem): string {
  if (item.source === 'contact')
    return [item.name, item.email, item.company].filter(Boolean).join(' · ');
  const who = item.user ? (item.user.email ?? item.user.name) : null;
  return [item.org.name ?? item.org.external_id, who, item.page].filter(Boolean).join(' · ');
}
