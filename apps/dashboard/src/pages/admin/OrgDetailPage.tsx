import { useParams } from 'react-router';
import { DataTable } from '../../components/DataTable.tsx';
import { Meter } from '../../components/Meter.tsx';
import { Empty, QueryView } from '../../components/states.tsx';
import { planName } from '../billing/plan-name.ts';
import { AdminTabs } from './AdminTabs.tsx';
import { orgLabel } from './OrgsPage.tsx';
import { PlanOverrideForm } from './PlanOverrideForm.tsx';
import { useAdminOrg } from './queries.ts';

export function OrgDetailPage() {
  const { id = '' } = useParams();
  const org = useAdminOrg(id);
  return (
    <section>
      <AdminTabs />
      <QueryView query={org} what="the org">
        {(o) => (
          <>
            <h1>{orgLabel(o)}</h1>
            <p data-testid="org-plan">
              Plan <strong>{planName(o.plan)}</strong>
              {o.plan_source === 'override'
                ? ' · pinned by the platform owner'
                : o.plan_source === 'billing'
                  ? ' · from billing'
                  : ' · no paid subscription'}
              {o.subscription ? ` · subscription ${o.subscription.status}` : ''}
            </p>
            <PlanOverrideForm orgId={o.id} override={o.override} />
            <div className="cards">
              <Meter label="Events" plan={planName(o.usage.plan)} {...o.usage.events} />
              <Meter
                label="Judge evaluations"
                plan={planName(o.usage.plan)}
                {...o.usage.judge_evaluations}
              />
            </div>
            {o.members.length === 0 ? (
              <Empty>No members.</Empty>
            ) : (
              <DataTable label="Members" caption="Members" columns={['Name', 'Email', 'Role']}>
                {o.members.map((m) => (
                  <tr key={m.user_id}>
                    <td>{m.name ?? '—'}</td>
                    <td>{m.email ?? '—'}</td>
                    <td>{m.role}</td>
                  </tr>
                ))}
              </DataTable>
            )}
          </>
        )}
      </QueryView>
    </section>
  );
}
