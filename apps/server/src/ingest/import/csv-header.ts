import type { CsvRecord } from './csv-records.ts';
import { ImportFormatError } from './types.ts';

const quoted = (names: readonly string[]) => names.map((name) => JSON.stringify(name)).join(', ');

/**
 * The column names of a CSV upload's header row, refused as a whole (every row depends on
 * them) when the row cannot be read, names a column `isKnown` rejects, or names one twice.
 * `known` lists the accepted names for the message.
 */
export function readHeaderNames(
  record: CsvRecord,
  isKnown: (name: string) => boolean,
  known: string,
): string[] {
  if (record.problem) {
    throw new ImportFormatError(
      `header row, column ${record.problem.field + 1}: ${record.problem.problem}`,
      record.line,
    );
  }
  // Surrounding spaces in a name are a typing habit ("event_id, type"), never meaningful.
  const names = record.fields.map((f) => f.trim());
  const unknown = names.filter((name) => !isKnown(name));
  if (unknown.length > 0) {
    throw new ImportFormatError(
      `the header row must name the columns; unknown column names ${quoted(unknown)} (known: ${known})`,
      record.line,
    );
  }
  const duplicated = names.filter((name, i) => names.indexOf(name) !== i);
  if (duplicated.length > 0) {
    throw new ImportFormatError(
      `duplicate column names in the header row: ${quoted([...new Set(duplicated)])}`,
      record.line,
    );
  }
  return names;
}
