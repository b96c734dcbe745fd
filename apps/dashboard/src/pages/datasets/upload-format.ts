/** The upload formats the server reads, told apart by the file's name as people save them. */
export interface UploadFormat {
  label: string;
  contentType: 'text/csv' | 'application/x-ndjson' | 'application/json';
}

const BY_EXTENSION: Record<string, UploadFormat> = {
  csv: { label: 'CSV', contentType: 'text/csv' },
  jsonl: { label: 'JSONL', contentType: 'application/x-ndjson' },
  ndjson: { label: 'JSONL', contentType: 'application/x-ndjson' },
  json: { label: 'JSON', contentType: 'application/json' },
};

export const UPLOAD_ACCEPT = Object.keys(BY_EXTENSION)
  .map((e) => `.${e}`)
  .join(',');

/** The format of a file by its extension, or null when the name says none the server reads. */
export function uploadFormat(fileName: string): UploadFormat | null {
  const dot = fileName.lastIndexOf('.');
  if (dot < 0) return null;
  return BY_EXTENSION[fileName.slice(dot + 1).toLowerCase()] ?? null;
}
