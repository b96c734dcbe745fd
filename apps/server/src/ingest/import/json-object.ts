/** Events are flat objects; arrays and null are objects to `typeof` but never events. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Names what was found instead of an object, for row error details. */
export function describeJsonValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

/** JSON.parse messages name the problem but their wording varies between Node versions. */
export function jsonErrorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
