import { useParams } from 'react-router';
import { QueryView } from '../../components/states.tsx';
import { DatasetItemsTable } from './DatasetItemsTable.tsx';
import { useDataset } from './queries.ts';
import { UploadForm } from './UploadForm.tsx';

/** One dataset at its latest version: an upload form and its items, page by page. */
export function DatasetPage() {
  const { id = '' } = useParams();
  const dataset = useDataset(id);
  return (
    <QueryView query={dataset} what="the dataset">
      {(d) => (
        <section>
          <div className="page-head">
            <h1>{d.name}</h1>
            <span className="hint" data-testid="dataset-version">
              version {d.version} · {d.item_count.toLocaleString('en-US')}{' '}
              {d.item_count === 1 ? 'item' : 'items'}
            </span>
          </div>
          {d.description ? <p>{d.description}</p> : null}
          <UploadForm datasetId={d.id} />
          {/* A new version starts again at the first page of its items. */}
          <DatasetItemsTable key={d.version} datasetId={d.id} />
        </section>
      )}
    </QueryView>
  );
}
