import { Type } from 'typebox';

/** A run label: a nightly day `YYYY-MM-DD` or a manual run `manual-<ISO instant>`. */
export const RUN_LABEL_PATTERN =
  '^(\\d{4}-\\d\\d-\\d\\d|manual-\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z)$';

/**
 * The years a day may name. Nothing this service stores (an event, a run, a tally) is dated
 * before 2000; a year-0 or year-1 day is a client's mistake, answered 400 rather than 404.
 */
export const FIRST_DAY_YEAR = 2000;
export const LAST_DAY_YEAR = 9999;

/** The Ajv format that checks a label names a real calendar day and time. */
export const RUN_LABEL_FORMAT = 'run-label';
export const RUN_LABEL_MESSAGE = `must be a real UTC day YYYY-MM-DD or a manual run label manual-<ISO instant>, in the years ${FIRST_DAY_YEAR} to ${LAST_DAY_YEAR} (e.g. 2026-02-28, manual-2026-02-28T13:45:00.000Z)`;

/** The Ajv format that checks a `day` names a real calendar day in the years above. */
export const DAY_FORMAT = 'utc-day';
export const DAY_MESSAGE = `must be a real UTC day YYYY-MM-DD in the years ${FIRST_DAY_YEAR} to ${LAST_DAY_YEAR} (e.g. 2026-02-28)`;
const DAY_PATTERN = '^\\d{4}-\\d\\d-\\d\\d$';

const LABEL_PARTS = /^(?:manual-)?(\d{4})-(\d\d)-(\d\d)(?:T(\d\d):(\d\d):(\d\d)(?:\.\d+)?Z)?$/;

/**
 * Whether a label that has the pattern's shape also names a moment that exists: the pattern
 * lets through 2026-02-30, 2026-13-01 and 25:61, which no run can be stored under.
 */
export function isRealRunLabel(label: string): boolean {
  const parts = LABEL_PARTS.exec(label);
  if (parts === null || label.startsWith('manual-') !== (parts[4] !== undefined)) return false;
  const [y, mo, d, h, mi, s] = parts.slice(1, 7).map((p) => Number(p ?? 0)) as number[];
  if ((y as number) < FIRST_DAY_YEAR || (y as number) > LAST_DAY_YEAR) return false;
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

/** Whether `day` is a real UTC calendar day `YYYY-MM-DD` in the years above. */
export function isRealDay(day: string): boolean {
  return new RegExp(DAY_PATTERN).test(day) && isRealRunLabel(day);
}

/** Every `day` that names a UTC calendar day alone (a query parameter, a body field). */
export function DayParam(description: string) {
  return Type.String({ pattern: DAY_PATTERN, format: DAY_FORMAT, description });
}
