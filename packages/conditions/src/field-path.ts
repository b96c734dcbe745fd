// Reading a field path from the attributes: JSON objects' own keys, arrays' indexes and length
// (docs/wire-format.md#the-condition-language-targeting).

const OBJECT_PROTOTYPE: object = Object.prototype;
const { hasOwn } = Object;

/** A field path compiled once: its parts, and whether a plain read could find an inherited name. */
export interface FieldPath {
  readonly parts: readonly string[];
  /**
   * Whether some part is a name Object.prototype has when the path is compiled (`toString`,
   * `constructor`, `__proto__`): such a part is looked up as an own key on every object.
   */
  readonly checksOwnKeys: boolean;
}

export function fieldPath(key: string): FieldPath {
  const parts = key.split('.');
  return { parts, checksOwnKeys: parts.some((part) => part in OBJECT_PROTOTYPE) };
}

/** The value at the path; null when missing. */
export function readPath(attributes: unknown, path: FieldPath): unknown {
  const { parts, checksOwnKeys } = path;
  if (parts.length === 1) return readField(attributes, parts[0] as string, checksOwnKeys);
  let current = attributes;
  for (const part of parts) {
    current = readField(current, part, checksOwnKeys);
    if (current === null) return null;
  }
  return current;
}

/** One part of a path: an object's own field; null when missing, or on no object or array. */
export function readField(current: unknown, part: string, checksOwnKeys: boolean): unknown {
  if (typeof current !== 'object' || current === null) return null;
  let value: unknown;
  if (Array.isArray(current)) {
    // As in both GrowthBook SDKs, an array has its length and its canonical indexes in range.
    if (part === 'length') return current.length;
    if (!ARRAY_INDEX.test(part)) return null;
    const index = Number(part);
    if (index >= current.length) return null;
    value = current[index];
  } else {
    // A JSON object inherits only Object.prototype's names, so a name Object.prototype lacks is
    // found only as an own key: the own-key lookup (about a sixth of a five-clause condition's
    // cost) is made only for the others (docs/decisions/targeting.md#targeting-conditions).
    if (checksOwnKeys && !hasOwn(current, part)) return null;
    value = (current as Record<string, unknown>)[part];
  }
  return value === undefined ? null : value;
}

// "0", "1", "12"; not "01", "-1", "+1", "1e2" or " 1".
const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/;
