import { fullFormats } from 'ajv-formats/dist/formats.js';
import { UsageError } from './usage-error.ts';

// The same rules as the HTTP routes these commands stand in for: the development sign-in
// (`POST /v1/dev/session`) and the pipeline run (`POST /v1/admin/pipeline/run`) validate with
// ajv-formats' `email` and `date` formats, so what one accepts the other does too.

const isDate = (fullFormats.date as { validate: (day: string) => boolean }).validate;
const EMAIL = fullFormats.email as RegExp;

export const ROLES = ['member', 'admin', 'owner'] as const;

/** A value given to an option, checked or refused with one line that names it. */
function refuse(command: string, option: string, value: string, rule: string): never {
  throw new UsageError(command, `--${option} ${JSON.stringify(value)} is not ${rule}`);
}

/** A real UTC calendar day as YYYY-MM-DD (no 2026-13-45, no 2026-02-30). */
export function checkedDay(command: string, day: string, option = 'day'): string {
  if (!/^\d{4}-\d\d-\d\d$/.test(day) || !isDate(day))
    refuse(command, option, day, 'a calendar day as YYYY-MM-DD');
  return day;
}

export function checkedEmail(command: string, email: string): string {
  if (email.length > 320 || !EMAIL.test(email)) refuse(command, 'email', email, 'an email address');
  return email;
}

export function checkedRole(command: string, role: string): (typeof ROLES)[number] {
  const known = ROLES.find((r) => r === role);
  if (known === undefined) refuse(command, 'role', role, `one of ${ROLES.join(', ')}`);
  return known;
}

/** Text of 1 to `max` characters (an org, a display name). */
export function checkedText(command: string, option: string, value: string, max: number): string {
  if (value.length === 0 || value.length > max)
    refuse(command, option, value, `1 to ${max} characters`);
  return value;
}

/** An http(s) URL (the demo's server). */
export function checkedUrl(command: string, option: string, value: string): string {
  let protocol = '';
  try {
    protocol = new URL(value).protocol;
  } catch {}
  if (protocol !== 'http:' && protocol !== 'https:')
    refuse(command, option, value, 'an http or https URL');
  return value;
}
