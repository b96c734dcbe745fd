import { useState } from 'react';
import type { UploadAnswer } from '../../api/client.ts';
import { DataTable } from '../../components/DataTable.tsx';
import { ProblemView } from '../../components/states.tsx';
import { useUploadItems } from './queries.ts';
import { UPLOAD_ACCEPT, type UploadFormat, uploadFormat } from './upload-format.ts';

/**
 * Uploads a CSV or JSONL file as it is: the server parses it, stores the good rows and reports
 * each bad one by the line it starts on, which is shown here as the server words it.
 */
export function UploadForm({ datasetId }: { datasetId: string }) {
  const upload = useUploadItems(datasetId);
  const [file, setFile] = useState<File | null>(null);
  const format: UploadFormat | null = file ? uploadFormat(file.name) : null;
  return (
    <form
      className="card"
      aria-label="Upload items"
      onSubmit={async (e) => {
        e.preventDefault();
        if (!file || !format) return;
        upload.mutate({ text: await file.text(), format });
      }}
    >
      <h2>Upload items</h2>
      <p className="hint">
        CSV with a header row <code>id,input,expected_output,group</code>, then{' '}
        <code>var.&lt;name&gt;</code> for variables and <code>meta.&lt;name&gt;</code> for metadata;
        or JSONL, one item per line. An item whose <code>id</code> exists replaces it; each upload
        that stores an item mints a new version.
      </p>
      <div className="row">
        <label>
          CSV or JSONL file
          <input
            type="file"
            accept={UPLOAD_ACCEPT}
            onChange={(e) => {
              setFile(e.target.files?.[0] ?? null);
              upload.reset();
            }}
          />
        </label>
        <button type="submit" disabled={!format || upload.isPending}>
          Upload
        </button>
      </div>
      {file && !format ? (
        <p className="problem" role="alert">
          {file.name}: choose a .csv, .jsonl (or .ndjson) or .json file.
        </p>
      ) : null}
      {upload.error ? <ProblemView error={upload.error} /> : null}
      {upload.data ? <UploadReport answer={upload.data} /> : null}
    </form>
  );
}

function UploadReport({ answer }: { answer: UploadAnswer }) {
  const { items, errors, version } = answer;
  return (
    <div className="upload-report">
      <p role="status" data-testid="upload-summary">
        {items === 0
          ? `No item stored; the dataset stays at version ${version}.`
          : `Stored ${items} ${items === 1 ? 'item' : 'items'}: version ${version}.`}
        {errors.length > 0
          ? ` ${errors.length} ${errors.length === 1 ? 'row was' : 'rows were'} skipped.`
          : ''}
      </p>
      {errors.length > 0 ? (
        <DataTable
          label="Rows skipped"
          caption="Rows skipped"
          columns={['Line', 'Problem']}
          testId="row-errors"
        >
          {errors.map((e) => (
            <tr key={`${e.line}-${e.index ?? ''}-${e.detail}`}>
              <th scope="row">{e.line}</th>
              <td>{e.detail}</td>
            </tr>
          ))}
        </DataTable>
      ) : null}
    </div>
  );
}
