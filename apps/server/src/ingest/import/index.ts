export { CSV_COLUMNS, type CsvColumn, parseCsvImport } from './csv.ts';
export { parseJsonArrayImport } from './json-array.ts';
export { parseNdjsonImport } from './ndjson.ts';
export {
  IMPORT_MAX_ROWS,
  ImportFormatError,
  type ImportRow,
  type ImportRowError,
  type ParsedImport,
} from './types.ts';
