import type { Layer } from '../../api/client.ts';
import { armColour } from '../../charts/arm-colour.ts';
import { DataTable } from '../../components/DataTable.tsx';
import { bucketRange, layerExperiments, layerSegments, segmentOwner } from './layer-segments.ts';

/**
 * The layer's buckets as one bar, each experiment's runs in its colour and named, retired runs
 * hatched, free buckets blank; the same data as a table. The bar is an image to assistive
 * technology, labelled with every owner and range, so nothing is only in the colours.
 */
export function LayerBucketMap({ layer }: { layer: Layer }) {
  const segments = layerSegments(layer.bucket_map, layer.bucket_count);
  const experiments = layerExperiments(layer.bucket_map);
  const colour = (name: string | null) =>
    name === null ? undefined : armColour(experiments, name);
  const describe = segments.map((s) => `${segmentOwner(s)} ${bucketRange(s)}`).join(', ');
  return (
    <section className="card" aria-labelledby="bucket-map">
      <h2 id="bucket-map">Bucket map</h2>
      <div
        className="layer-bar"
        role="img"
        aria-label={`Buckets 0–${layer.bucket_count - 1} of layer ${layer.name}: ${describe}`}
        data-testid="layer-bar"
      >
        {segments.map((s) => (
          <div
            key={s.start}
            className={`layer-run${s.experiment === null ? ' free' : ''}${s.retired ? ' retired' : ''}`}
            style={{
              left: `${(100 * s.start) / layer.bucket_count}%`,
              width: `${(100 * (s.end - s.start)) / layer.bucket_count}%`,
              ...(s.retired || s.experiment === null ? {} : { background: colour(s.experiment) }),
            }}
            title={`${segmentOwner(s)}: ${bucketRange(s)}`}
          >
            <span>{segmentOwner(s)}</span>
          </div>
        ))}
      </div>
      <LayerRunsTable layer={layer} segments={segments} colour={colour} />
    </section>
  );
}

/** The bar's runs as a table: owner, range, count and share of the layer. */
function LayerRunsTable({
  layer,
  segments,
  colour,
}: {
  layer: Layer;
  segments: ReturnType<typeof layerSegments>;
  colour: (name: string | null) => string | undefined;
}) {
  return (
    <DataTable
      label={`Bucket runs of layer ${layer.name}`}
      caption="Who owns which buckets"
      columns={['Owner', 'Buckets', 'Count', 'Share']}
      testId="layer-runs"
    >
      {segments.map((s) => (
        <tr key={s.start} data-testid={`run-${s.start}`}>
          <th scope="row">
            <span
              className={`swatch${s.experiment === null ? ' unused' : ''}${s.retired ? ' retired' : ''}`}
              style={s.retired || s.experiment === null ? {} : { background: colour(s.experiment) }}
            />{' '}
            {segmentOwner(s)}
          </th>
          <td data-testid="range">{bucketRange(s)}</td>
          <td>{(s.end - s.start).toLocaleString('en-US')}</td>
          <td>{((100 * (s.end - s.start)) / layer.bucket_count).toFixed(2)}%</td>
        </tr>
      ))}
    </DataTable>
  );
}
