/** A stored value for people: a string as written, anything else as indented JSON, null as a dash. */
export function shownValue(value: unknown): string {
  if (value === null || value === undefined) return '—';
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}
