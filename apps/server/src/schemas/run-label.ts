import { Type } from 'typebox';

/** A run label: a nightly day `YYYY-MM-DD` or a manual run `manual-<ISO instant>`. */
export const RUN_LABEL_PATTERN =
  '^(\\d{4}-\\d\\d-\\d\\d|manual-\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z)$';

/** The Ajv format that checks a label names a real calendar day and time. */
export const RUN_LABEL_FORMAT = 'run-label';
export const RUN_LABEL_MESSAGE =
  'must be a real UTC day YYYY-MM-DD or a manual run label manual-<ISO instant> (e.g. 2026-02-28, manual-2026-02-28T13:45:00.000Z)';

const LABEL_PARTS = /^(?:manual-)?(\d{4})-(\d\d)-(\d\d)(?:T(\d\d):(\d\d):(\d\d)(?:\.\d+)?Z)?$/;

/**
 * Whether a label that has the pattern's shape also names a moment that exists: the pattern
 * lets through 2026-02-30, 2026-13-01 and 25:61, which no run can be stored under.
 */
export function isRealRunLabel(label: string): boolean {
  const parts = LABEL_PARTS.exec(label);
  if (parts === null || label.startsWith('manual-') !== (parts[4] !== undefined)) return false;
  const [y, mo, d, h, mi, s] = parts.slice(1, 7).map((p) => Number(p ?? 0)) as number[];
  const at = new Date(0);
  at.setUTCFullYear(y as number, (mo as number) - 1, d);
  at.setUTCHours(h as number, mi, s);
  return (
    at.getUTCFullYear() === y &&
    at.getUTCMonth() === (mo as number) - 1 &&
    at.getUTCDate() === d &&
    at.getUTCHours() === h &&
    at.getUTCMinutes() === mi &&
    at.getUTCSeconds() === s
  );
}

/** The `day` query parameter of the results routes: the label's shape, and a real moment. */
export function RunLabelParam(description: string) {
  return Type.String({ pattern: RUN_LABEL_PATTERN, format: RUN_LABEL_FORMAT, description });
}
