/** Dotted paths whose values differ between two configs (arrays compared by index). */
export function diffConfig(
  a: unknown,
  b: unknown,
  path = '',
): Array<{ path: string; from: unknown; to: unknown }> {
  if (JSON.stringify(a) === JSON.stringify(b)) return [];
  const isObj = (x: unknown) => x !== null && typeof x === 'object';
  if (!isObj(a) || !isObj(b)) return [{ path: path || '(root)', from: a, to: b }];
  const keys = new Set([...Object.keys(a as object), ...Object.keys(b as object)]);
  return [...keys].flatMap((k) =>
    diffConfig(
      (a as Record<string, unknown>)[k],
      (b as Record<string, unknown>)[k],
      path ? `${path}.${k}` : k,
    ),
  );
}

/** The parts of a version that are configuration (not server bookkeeping). */
export function configOf(v: Record<string, unknown>) {
  const { id: _id, version: _v, created_at: _c, updated_at: _u, ...config } = v;
  return config;
}
