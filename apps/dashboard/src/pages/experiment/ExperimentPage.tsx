import { Link, NavLink, useParams } from 'react-router';
import type { Experiment } from '../../api/client.ts';
import { NotFound } from '../../components/NotFound.tsx';
import { QueryView } from '../../components/states.tsx';
import { ExperimentEditor } from '../editor/ExperimentEditor.tsx';
import { useExperiment, useResultsSummary, useVersions } from '../experiments/queries.ts';
import { LifecycleBar } from '../lifecycle/LifecycleBar.tsx';
import { StateNote } from '../lifecycle/StateNote.tsx';
import { OfflineTab } from '../offline/OfflineTab.tsx';
import { RunPage } from '../offline/RunPage.tsx';
import { LiveTab } from '../results/LiveTab.tsx';
import { ResultsTab } from '../results/ResultsTab.tsx';
import { TrafficTab } from '../results/TrafficTab.tsx';
import { RampTab } from '../rollout/RampTab.tsx';
import { VersionsTab } from '../versions/VersionsTab.tsx';
import { TargetingSummary } from './TargetingSummary.tsx';
import { TestEventButton } from './TestEventButton.tsx';

const TABS = [
  { tab: 'results', label: 'Results' },
  { tab: 'live', label: 'Live' },
  { tab: 'traffic', label: 'Traffic' },
  { tab: 'ramp', label: 'Ramp' },
  { tab: 'versions', label: 'Versions' },
  { tab: 'offline', label: 'Offline' },
  { tab: 'edit', label: 'Edit' },
] as const;

/** `/experiments/:id/:tab`, or an offline run's page (`/experiments/:id/offline/:runId`). */
export function ExperimentPage({ offlineRun = false }: { offlineRun?: boolean }) {
  const { tab = offlineRun ? 'offline' : 'results' } = useParams();
  if (!TABS.some((t) => t.tab === tab)) return <NotFound what="page" />;
  return <ExperimentTabs tab={tab} />;
}

function ExperimentTabs({ tab }: { tab: string }) {
  const { id = '', runId } = useParams();
  const experiment = useExperiment(id);
  // Asked in parallel with the experiment: the results tab's default view comes from it.
  useResultsSummary();
  return (
    <QueryView query={experiment} what="the experiment">
      {(e) => (
        <section>
          <ExperimentHead experiment={e} />
          <StateNote experiment={e} />
          <nav className="tabs" aria-label="Experiment">
            {TABS.filter((t) => t.tab !== 'ramp' || e.rollout !== undefined).map((t) => (
              <NavLink key={t.tab} to={`/experiments/${e.id}/${t.tab}`}>
                {t.label}
              </NavLink>
            ))}
          </nav>
          {tab === 'results' ? <ResultsTab experiment={e} /> : null}
          {tab === 'live' ? <LiveTab experiment={e} /> : null}
          {tab === 'traffic' ? <TrafficTab experiment={e} /> : null}
          {tab === 'versions' ? <VersionsTab experiment={e} /> : null}
          {tab === 'ramp' && e.rollout !== undefined ? <RampTab experiment={e} /> : null}
          {tab === 'ramp' && e.rollout === undefined ? (
            <p className="note">This experiment has no ramp: its configuration has no rollout.</p>
          ) : null}
          {tab === 'offline' && runId === undefined ? <OfflineTab experiment={e} /> : null}
          {tab === 'offline' && runId !== undefined ? (
            <RunPage key={runId} experiment={e} runId={runId} />
          ) : null}
          {tab === 'edit' ? <EditTab id={e.id} /> : null}
        </section>
      )}
    </QueryView>
  );
}

function ExperimentHead({ experiment: e }: { experiment: Experiment }) {
  return (
    <div className="page-head">
      <h1>{e.name}</h1>
      <LifecycleBar experiment={e} />
      {e.layer === undefined ? null : (
        <span className="hint" data-testid="experiment-layer">
          layer: <Link to={`/layers/${encodeURIComponent(e.layer)}`}>{e.layer}</Link>,{' '}
          {e.layer_weight}%
        </span>
      )}
      <span className="hint">
        version {e.version} · {e.allocation.map((a) => `${a.variant} ${a.weight}%`).join(' · ')}
      </span>
      <TargetingSummary targeting={e.targeting} />
      <TestEventButton id={e.id} />
    </div>
  );
}

/** A stopped or archived experiment's configuration is frozen: the server refuses a new version. */
function EditTab({ id }: { id: string }) {
  const experiment = useExperiment(id);
  const versions = useVersions(id);
  if (!experiment.data) return null;
  if (experiment.data.status === 'stopped' || experiment.data.status === 'archived')
    return (
      <p className="note" data-testid="edit-frozen">
        A {experiment.data.status} experiment cannot be edited: its configuration stays as it is,
        and the server refuses a new version.
      </p>
    );
  return (
    <QueryView query={versions} what="versions">
      {(vs) => (
        <ExperimentEditor key={experiment.data.version} existing={experiment.data} versions={vs} />
      )}
    </QueryView>
  );
}
