import { detailPage } from '../../components/DetailPage.tsx';
import { DatasetItemsTable } from './DatasetItemsTable.tsx';
import { useDataset } from './queries.ts';
import { UploadForm } from './UploadForm.tsx';

/** One dataset at its latest version: an upload form and its items, page by page. */
export const DatasetPage = detailPage('id', useDataset, 'the dataset', {
  lineTestId: 'dataset-version',
  line: (d) => (
    <>
      version {d.version} · {d.item_count.toLocaleString('en-US')}{' '}
      {d.item_count === 1 ? 'item' : 'items'}
    </>
  ),
  body: (d) => (
    <>
      <UploadForm datasetId={d.id} />
      {/* A new version starts again at the first page of its items. */}
      <DatasetItemsTable key={d.version} datasetId={d.id} />
    </>
  ),
});
