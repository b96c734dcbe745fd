/** One event object as submitted, not yet validated; `line` is where it starts in the payload. */
export interface ImportRow {
  line: number;
  /**
   * The 0-based position of the element in a JSON array, beside the line: several elements can
   * share a line (a one-line array), the index tells them apart.
   */
  index?: number;
  event: Record<string, unknown>;
}

/** A row that could not be read; the other rows are unaffected. */
export interface ImportRowError {
  line: number;
  index?: number;
  detail: string;
}

export interface ParsedImport {
  rows: ImportRow[];
  errors: ImportRowError[];
}

/**
 * More rows than this make the whole payload unusable rather than a list of errors: an import
 * that large belongs in several requests, and refusing early bounds the work per request.
 */
export const IMPORT_MAX_ROWS = 100_000;

/** The payload as a whole is unusable (no header, not an array, too many rows): a 400, no rows. */
export class ImportFormatError extends Error {
  /** Where the problem was found, when one line is to blame. */
  readonly line: number | undefined;

  constructor(message: string, line?: number) {
    super(line === undefined ? message : `line ${line}: ${message}`);
    this.name = 'ImportFormatError';
    this.line = line;
  }
}

/** Counts rows (good and bad alike) and stops the parse once the cap is passed. */
export function checkRowCap(count: number): void {
  if (count > IMPORT_MAX_ROWS) {
    throw new ImportFormatError(
      `more than ${IMPORT_MAX_ROWS} rows; split the import into several requests`,
    );
  }
}

/** A UTF-8 BOM is an artefact of the editor that saved the file, never data. */
export function bomLength(text: string): number {
  return text.charCodeAt(0) === 0xfeff ? 1 : 0;
}
