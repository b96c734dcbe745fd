/**
 * The inner cache under `key`, made (empty, by `Make`) the first time the key is asked for. A
 * class rather than a factory function, so a lookup on a hot path allocates nothing once made.
 */
export function innerCache<K, V>(
  outer: { get(key: K): V | undefined; set(key: K, value: V): unknown },
  key: K,
  Make: new () => V,
): V {
  let inner = outer.get(key);
  if (inner === undefined) {
    inner = new Make();
    outer.set(key, inner);
  }
  return inner;
}
