import type { Health } from '../../api/client.ts';
import { QueryView } from '../../components/states.tsx';
import { AdminPage } from './AdminTabs.tsx';
import { useHealth } from './queries.ts';

const when = (iso: string) => new Date(iso).toLocaleString();

/** Dependency and pipeline health, as the server measured it when asked. */
export function HealthPage() {
  const health = useHealth();
  return (
    <AdminPage title="Health">
      <QueryView query={health} what="health">
        {(h) => (
          <dl className="card health">
            <dt>Database</dt>
            <dd data-testid="health-database">
              {h.database.reachable
                ? `reachable · ${h.database.latency_ms?.toFixed(1) ?? '?'} ms round trip`
                : `NOT reachable${h.database.error ? `: ${h.database.error}` : ''}`}
            </dd>
            <dt>Ingest</dt>
            <dd data-testid="health-ingest">{ingestLine(h.ingest)}</dd>
            <dt>Nightly pipeline</dt>
            <dd data-testid="health-nightly">{nightlyLine(h.nightly)}</dd>
            <dt>Providers configured</dt>
            <dd data-testid="health-providers">
              {Object.entries(h.providers)
                .map(([name, on]) => `${name.replaceAll('_', ' ')}: ${on ? 'yes' : 'no'}`)
                .join(' · ')}
            </dd>
            <dt>Stored patterns never run</dt>
            <dd data-testid="health-patterns">
              <PatternsList patterns={h.patterns} />
            </dd>
          </dl>
        )}
      </QueryView>
    </AdminPage>
  );
}

function ingestLine(ingest: Health['ingest']): string {
  if (ingest === null) return 'unknown (database unreachable)';
  const lag =
    ingest.unfolded_events === 0
      ? 'every stored event folded'
      : `${ingest.unfolded_events} events waiting, oldest ${ingest.fold_lag_seconds} s`;
  return `${lag} · ${ingest.quarantined_events} quarantined`;
}

function nightlyLine(nightly: Health['nightly']): string {
  if (nightly === null) return 'unknown (database unreachable)';
  const last = nightly.last_run
    ? `last run for ${nightly.last_run.day} ${nightly.last_run.outcome} at ${when(nightly.last_run.finished_at)} (${nightly.last_run.experiments} experiments)${nightly.last_run.error ? `: ${nightly.last_run.error}` : ''}`
    : 'no run yet';
  const next = nightly.next_run_at ? ` · next ${when(nightly.next_run_at)}` : '';
  return `${last} · schedule ${nightly.schedule} UTC${nightly.scheduler_in_this_process ? next : ' (scheduler not in this process)'}`;
}

/** Stored $regex patterns the server refuses to run (ReDoS), found by its start-up scan. */
function PatternsList({ patterns }: { patterns: Health['patterns'] }) {
  if (patterns.scanned_at === null) return <>not scanned yet</>;
  if (patterns.refused.length === 0) return <>none (scanned {when(patterns.scanned_at)})</>;
  return (
    <ul>
      {patterns.refused.map((p) => (
        <li key={`${p.experiment_id}${p.pointer}`}>
          org {p.org_id} · experiment {p.experiment} · <code>{p.pointer}</code>{' '}
          <code>{p.pattern}</code>: {p.reason}
        </li>
      ))}
    </ul>
  );
}
