import type { DatasetItem } from '../../api/client.ts';
import { DataTable } from '../../components/DataTable.tsx';
import { Pager, useCursorPages } from '../../components/Pager.tsx';
import { shownValue as shown } from '../../components/shown-value.ts';
import { Empty, QueryView } from '../../components/states.tsx';
import { useDatasetItems } from './queries.ts';

/** Free-form objects compactly, "—" when empty: most items carry none. */
const objectText = (o: Record<string, unknown>) =>
  Object.keys(o).length === 0 ? '—' : JSON.stringify(o);

/** The latest version's items by id (the server's order), a page at a time. */
export function DatasetItemsTable({ datasetId }: { datasetId: string }) {
  const pages = useCursorPages();
  const items = useDatasetItems(datasetId, pages.after);
  return (
    <section aria-labelledby="items-heading">
      <h2 id="items-heading">Items</h2>
      <QueryView query={items} what="items">
        {(page) =>
          page.data.length === 0 && pages.page === 1 ? (
            <Empty>No items yet: upload a CSV or JSONL file.</Empty>
          ) : (
            <>
              <ItemsTable items={page.data} />
              <Pager
                label="Dataset items"
                pages={pages}
                shown={page}
                busy={items.isPlaceholderData}
              />
            </>
          )
        }
      </QueryView>
    </section>
  );
}

function ItemsTable({ items }: { items: DatasetItem[] }) {
  return (
    <DataTable
      label="Dataset items"
      columns={['Id', 'Input', 'Expected output', 'Group', 'Variables', 'Metadata']}
      className="dataset-items"
    >
      {items.map((item) => (
        <tr key={item.id} data-testid="dataset-item">
          <th scope="row">
            <code>{item.id}</code>
          </th>
          <td className="text-cell">{shown(item.input)}</td>
          <td className="text-cell">{shown(item.expected_output)}</td>
          <td>{item.group ?? '—'}</td>
          <td className="text-cell">{objectText(item.variables)}</td>
          <td className="text-cell">{objectText(item.metadata)}</td>
        </tr>
      ))}
    </DataTable>
  );
}
