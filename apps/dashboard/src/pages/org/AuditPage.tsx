import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { type AuditEntry, api, ok } from '../../api/client.ts';
import { DataTable } from '../../components/DataTable.tsx';
import { QueryList } from '../../components/states.tsx';

export function AuditPage() {
  const [params, setParams] = useSearchParams();
  const target = params.get('target') ?? '';
  const [typed, setTyped] = useState(target);
  const audit = useQuery({
    queryKey: ['audit', target],
    queryFn: () =>
      ok(api.GET('/v1/audit', { params: { query: target ? { target_id: target } : {} } })),
  });
  return (
    <section>
      <h1>Audit log</h1>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          setParams(typed ? { target: typed } : {});
        }}
      >
        <label>
          Target id
          <input
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
            placeholder="experiment id, or publishable / secret"
          />
        </label>
        <button type="submit">Filter</button>
      </form>
      <QueryList
        query={audit}
        what="the audit log"
        empty={<>No audit entries{target ? ` for ${target}` : ''}.</>}
      >
        {(entries) => (
          <AuditTable
            entries={entries}
            onTarget={(id) => {
              setTyped(id);
              setParams({ target: id });
            }}
          />
        )}
      </QueryList>
    </section>
  );
}

/** The entries, newest first as the server sends them; a target filters the log to it. */
function AuditTable({
  entries,
  onTarget,
}: {
  entries: AuditEntry[];
  onTarget: (targetId: string) => void;
}) {
  return (
    <DataTable label="Audit entries" columns={['When', 'Who', 'Action', 'Target']}>
      {entries.map((e) => (
        <tr key={e.id}>
          <td>{new Date(e.created_at).toLocaleString()}</td>
          <td>{e.actor ? (e.actor.name ?? e.actor.email ?? e.actor.id) : 'system'}</td>
          <td>{e.action}</td>
          <td>
            <button
              type="button"
              className="link"
              onClick={() => onTarget(e.target_id)}
              aria-label={`Show only ${e.target_type} ${e.target_id}`}
            >
              {e.target_type} {e.target_id}
            </button>
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
