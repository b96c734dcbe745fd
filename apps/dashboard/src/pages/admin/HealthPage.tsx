import { QueryView } from '../../components/states.tsx';
import { AdminTabs } from './AdminTabs.tsx';
import { useHealth } from './queries.ts';

const yesNo = (b: boolean) => (b ? 'yes' : 'no');

/** Dependency and pipeline health, as the server measured it when asked. */
export function HealthPage() {
  const health = useHealth();
  return (
    <section>
      <h1>Health</h1>
      <AdminTabs />
      <QueryView query={health} what="health">
        {(h) => (
          <dl className="card health">
            <dt>Database</dt>
            <dd data-testid="health-database">
              {h.database.reachable
                ? `reachable · ${h.database.latency_ms.toFixed(1)} ms`
                : 'NOT reachable'}
            </dd>
            <dt>Ingest</dt>
            <dd data-testid="health-ingest">
              {h.ingest.fold_lag_seconds === null
                ? 'queue empty'
                : `oldest unfolded batch ${h.ingest.fold_lag_seconds.toFixed(1)} s old`}
            </dd>
            <dt>Last nightly run</dt>
            <dd data-testid="health-nightly">
              {h.nightly.last_run_at
                ? `${new Date(h.nightly.last_run_at).toLocaleString()} · ${h.nightly.outcome}`
                : 'never ran'}
            </dd>
            <dt>Providers configured</dt>
            <dd data-testid="health-providers">
              {Object.entries(h.providers)
                .map(([name, on]) => `${name}: ${yesNo(on)}`)
                .join(' · ')}
            </dd>
          </dl>
        )}
      </QueryView>
    </section>
  );
}
