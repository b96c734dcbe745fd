import { useQuery } from '@tanstack/react-query';
import { api, ok } from '../../api/client.ts';
import { QueryView } from '../../components/states.tsx';

function Meter({ label, used, included }: { label: string; used: number; included: number }) {
  return (
    <div className="card meter">
      <h2>{label}</h2>
      <progress
        max={Math.max(included, 1)}
        value={Math.min(used, Math.max(included, 1))}
        aria-label={`${label}: ${used} of ${included}`}
      />
      <p>
        {used.toLocaleString()} of {included.toLocaleString()} included
      </p>
    </div>
  );
}

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
          </>
        )}
      </QueryView>
    </section>
  );
}
