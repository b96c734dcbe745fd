import { detailPage } from '../../components/DetailPage.tsx';
import { FrozenBucketing } from '../../components/FrozenBucketing.tsx';
import { LayerBucketMap } from './LayerBucketMap.tsx';
import { ownedBuckets } from './layer-segments.ts';
import { useLayer } from './queries.ts';

/** `/layers/:id`, by id or name: the frozen fields as text, then who owns which buckets. */
export const LayerPage = detailPage('id', useLayer, 'the layer', {
  line: (l) => (
    <>
      version {l.version} · {ownedBuckets(l.bucket_map).toLocaleString('en-US')} owned ·{' '}
      <span data-testid="free-buckets">{l.free_buckets.toLocaleString('en-US')} free</span>
    </>
  ),
  body: (l) => (
    <>
      <dl className="frozen card">
        <FrozenBucketing salt={l.salt} bucketCount={l.bucket_count} />
        <dd className="hint">
          Frozen when the layer was created: changing either would move its users between
          experiments.
        </dd>
      </dl>
      <LayerBucketMap layer={l} />
    </>
  ),
});
