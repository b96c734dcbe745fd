import { Link } from 'react-router';
import { Meter } from '../../components/Meter.tsx';
import { QueryView } from '../../components/states.tsx';
import { LimitsNote } from '../billing/LimitsNote.tsx';
import { planName } from '../billing/plan-name.ts';
import { useUsage } from '../billing/queries.ts';
import { UnpricedCalls } from '../model-prices/UnpricedCalls.tsx';

export function UsagePage() {
  const usage = useUsage();
  return (
    <section>
      <h1>Usage</h1>
      <QueryView query={usage} what="usage">
        {(u) => (
          <>
            <p>
              Plan <strong>{planName(u.plan)}</strong> · month {u.month} (UTC) · resets{' '}
              {new Date(u.resets_at).toLocaleString()}
            </p>
            <LimitsNote usage={u} />
            <div className="cards">
              <Meter label="Events" plan={planName(u.plan)} {...u.events} />
              <Meter label="Judge evaluations" plan={planName(u.plan)} {...u.judge_evaluations} />
            </div>
            <UnpricedCalls usage={u} />
            <p>
              <Link to="/billing">Change plan or manage billing</Link>
            </p>
          </>
        )}
      </QueryView>
    </section>
  );
}
