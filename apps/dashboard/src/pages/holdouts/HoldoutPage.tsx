import type { Holdout } from '../../api/client.ts';
import { detailPage } from '../../components/DetailPage.tsx';
import { FrozenBucketing } from '../../components/FrozenBucketing.tsx';
import { useExperiments } from '../experiments/queries.ts';
import { bucketRange } from '../layers/layer-segments.ts';
import { HoldoutEditForm } from './HoldoutEditForm.tsx';
import { HoldoutResults } from './HoldoutResults.tsx';
import { useHoldout } from './queries.ts';

/** `/holdouts/:id`: the frozen fields as text, what it covers, its change form and results. */
export const HoldoutPage = detailPage('id', useHoldout, 'the holdout', {
  lineTestId: 'holdout-line',
  line: (h) => `version ${h.version} · ${h.percent}% held out`,
  body: (h) => (
    <>
      <dl className="frozen card">
        <FrozenBucketing salt={h.salt} bucketCount={h.bucket_count} />
        <dt>Held-out buckets</dt>
        <dd data-testid="held-out-buckets">{h.ranges.map(bucketRange).join(', ') || 'none'}</dd>
        <dt>Experiments</dt>
        <dd data-testid="holdout-experiments">
          <ExperimentNames experiments={h.experiments} />
        </dd>
        <dd className="hint">
          Salt and bucket count are frozen: changing either would move held-out users.
        </dd>
      </dl>
      <HoldoutEditForm key={h.version} holdout={h} />
      <HoldoutResults holdout={h} />
    </>
  ),
});

function ExperimentNames({ experiments }: { experiments: Holdout['experiments'] }) {
  const list = useExperiments();
  if (experiments === 'all') return <>all experiments created after the holdout</>;
  if (experiments.length === 0) return <>none</>;
  const names = new Map((list.data ?? []).map((e) => [e.id, e.name]));
  return <>{experiments.map((id) => names.get(id) ?? id).join(', ')}</>;
}
