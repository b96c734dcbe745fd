import { Link } from 'react-router';
import type { AdminOrgSummary } from '../../api/client.ts';
import { DataTable } from '../../components/DataTable.tsx';
import { QueryList } from '../../components/states.tsx';
import { planName } from '../billing/plan-name.ts';
import { AdminPage } from './AdminTabs.tsx';
import { useAdminOrgs } from './queries.ts';

export const orgLabel = (o: { name: string | null; external_id: string }) =>
  o.name ?? o.external_id;

const used = (m: { used: number; included: number }) =>
  `${m.used.toLocaleString()} of ${m.included.toLocaleString()}`;

export function OrgsPage() {
  const orgs = useAdminOrgs();
  return (
    <AdminPage title="Orgs">
      <QueryList query={orgs} what="orgs" empty="No orgs yet.">
        {(list) => (
          <DataTable
            label="Every org"
            columns={['Org', 'Plan', 'Override', 'Events this month', 'Judge evaluations']}
          >
            {list.map((o: AdminOrgSummary) => (
              <tr key={o.id}>
                <td>
                  <Link to={`/admin/orgs/${o.id}`}>{orgLabel(o)}</Link>
                </td>
                <td>{planName(o.plan)}</td>
                <td>{o.override ? `pinned to ${planName(o.override)}` : '—'}</td>
                <td>{used(o.usage.events)}</td>
                <td>{used(o.usage.judge_evaluations)}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </QueryList>
    </AdminPage>
  );
}
