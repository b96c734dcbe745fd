/** NUL and unpaired UTF-16 surrogates: valid in JSON, impossible in PostgreSQL text and jsonb. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what is looked for
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function unstorableIn(value: unknown, path: string): string | null {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? path : null;
  if (typeof value !== 'object' || value === null) return null;
  for (const [key, inner] of Object.entries(value)) {
    const at = `${path}/${key}`;
    if (UNSTORABLE.test(key)) return at;
    const found = unstorableIn(inner, at);
    if (found !== null) return found;
  }
  return null;
}

/**
 * The JSON pointer (without the leading slash) of the first string in `value` that PostgreSQL
 * cannot store, or null. Checked per event so one such event is rejected, not its batch.
 */
export function unstorableTextAt(value: Record<string, unknown>): string | null {
  return unstorableIn(value, '')?.slice(1) ?? null;
}
