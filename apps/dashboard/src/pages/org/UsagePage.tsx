import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, ok } from '../../api/client.ts';
import { Meter } from '../../components/Meter.tsx';
import { QueryView } from '../../components/states.tsx';

export function UsagePage() {
  const usage = useQuery({ queryKey: ['usage'], queryFn: () => ok(api.GET('/v1/usage')) });
  return (
    <section>
      <h1>Usage</h1>
      <QueryView query={usage} what="usage">
        {(u) => (
          <>
            <p>
              Plan <strong>{u.plan}</strong> · month {u.month} (UTC) · resets{' '}
              {new Date(u.resets_at).toLocaleString()} ·{' '}
              {u.overage_billed ? 'overage is billed' : 'hard cap at the allowance'}
              {u.enforced ? '' : ' · limits not enforced in this environment'}
            </p>
            <div className="cards">
              <Meter label="Events" {...u.events} />
              <Meter label="Judge evaluations" {...u.judge_evaluations} />
            </div>
            <p>
              <Link to="/billing">Change plan or manage billing</Link>
            </p>
          </>
        )}
      </QueryView>
    </section>
  );
}
