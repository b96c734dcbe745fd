import { IngestError } from '../outcomes.ts';
import { OTLP_MAX_ATTRIBUTES, OTLP_MAX_VALUE_DEPTH } from './limits.ts';
import type { Attributes, AttributeValue, OtlpEncoding, OtlpSpan } from './span.ts';

type Json = Record<string, unknown>;

const HEX_ID = /^[0-9a-fA-F]+$/;

/** The largest fixed64, OTLP's type for a time in nanoseconds since the epoch. */
const MAX_FIXED64 = 2n ** 64n - 1n;

const STATUS_NAMES: Record<string, number> = {
  STATUS_CODE_UNSET: 0,
  STATUS_CODE_OK: 1,
  STATUS_CODE_ERROR: 2,
};

export function unreadable(detail: string): IngestError {
  return new IngestError('otlp-unreadable', detail);
}

/** An id as lowercase hex of `bytes` bytes; all-zero ids are invalid in OTLP. */
function idOf(value: unknown, bytes: number, encoding: OtlpEncoding): string | null {
  if (typeof value !== 'string') return null;
  const hex =
    encoding === 'json'
      ? HEX_ID.test(value)
        ? value.toLowerCase()
        : ''
      : Buffer.from(value, 'base64').toString('hex');
  return hex.length === bytes * 2 && !/^0+$/.test(hex) ? hex : null;
}

/**
 * A time in nanoseconds, null when missing or not a whole number; a number beyond fixed64 is
 * no OTLP time at all (and no date either), so the body is refused.
 */
function nanosOf(value: unknown, path: string): bigint | null {
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  let ns: bigint;
  try {
    ns = BigInt(value);
  } catch {
    return null;
  }
  if (ns > MAX_FIXED64) {
    throw unreadable(
      `${path}: ${String(value).slice(0, 40)} is beyond a fixed64 count of nanoseconds (at most ${MAX_FIXED64})`,
    );
  }
  return ns > 0n ? ns : null;
}

export function listAt(parent: Json, key: string, path: string): Json[] {
  const value = parent[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw unreadable(`${path}.${key}: is not an array`);
  for (const [i, item] of value.entries()) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      throw unreadable(`${path}.${key}[${i}]: is not an object`);
    }
  }
  return value as Json[];
}

export function objectAt(parent: Json, key: string, path: string): Json {
  const value = parent[key];
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw unreadable(`${path}.${key}: is not an object`);
  }
  return value as Json;
}

function tooDeep(path: string): IngestError {
  return unreadable(
    `${path}: an attribute value nests arrayValue and kvlistValue more than ${OTLP_MAX_VALUE_DEPTH} deep, the most allowed`,
  );
}

/** An OTLP AnyValue (`{stringValue: …}` and its siblings) as plain data; `depth` is its own. */
function plainValue(any: unknown, depth: number, path: string): AttributeValue {
  if (typeof any !== 'object' || any === null) return null;
  const v = any as Json;
  if (typeof v.stringValue === 'string') return v.stringValue;
  if (typeof v.boolValue === 'boolean') return v.boolValue;
  if (typeof v.intValue === 'string' || typeof v.intValue === 'number') return Number(v.intValue);
  if (typeof v.doubleValue === 'number') return v.doubleValue;
  if (typeof v.bytesValue === 'string') return v.bytesValue;
  const array = v.arrayValue as Json | undefined;
  if (array !== undefined && array !== null && Array.isArray(array.values)) {
    if (depth >= OTLP_MAX_VALUE_DEPTH) throw tooDeep(path);
    return array.values.map((item) => plainValue(item, depth + 1, path));
  }
  const kvlist = v.kvlistValue as Json | undefined;
  if (kvlist !== undefined && kvlist !== null && Array.isArray(kvlist.values)) {
    if (depth >= OTLP_MAX_VALUE_DEPTH) throw tooDeep(path);
    return Object.fromEntries(attributesOf(kvlist.values as Json[], path, depth + 1));
  }
  return null;
}

/** An attribute list (a span's, an event's, a resource's or a kvlist's) as a map. */
export function attributesOf(
  list: readonly Json[],
  path: string,
  depth = 1,
): Map<string, AttributeValue> {
  if (list.length > OTLP_MAX_ATTRIBUTES) {
    throw new IngestError(
      'otlp-too-large',
      `${path}: ${list.length} attributes in one list, more than ${OTLP_MAX_ATTRIBUTES}, the most allowed`,
      { limit: OTLP_MAX_ATTRIBUTES },
    );
  }
  const out = new Map<string, AttributeValue>();
  for (const kv of list) {
    if (typeof kv !== 'object' || kv === null) continue;
    if (typeof kv.key === 'string') out.set(kv.key, plainValue(kv.value, depth, path));
  }
  return out;
}

/** One span of either encoding, in the camelCase object form both share. */
export function spanOf(
  s: Json,
  path: string,
  resource: Attributes,
  encoding: OtlpEncoding,
): OtlpSpan {
  const status = objectAt(s, 'status', path);
  // OTLP JSON sends the enum as an integer; a sender using proto3's JSON mapping sends its name.
  const code =
    typeof status.code === 'number' ? status.code : (STATUS_NAMES[String(status.code)] ?? 0);
  return {
    traceId: idOf(s.traceId, 16, encoding),
    spanId: idOf(s.spanId, 8, encoding),
    startNs: nanosOf(s.startTimeUnixNano, `${path}.startTimeUnixNano`),
    endNs: nanosOf(s.endTimeUnixNano, `${path}.endTimeUnixNano`),
    statusCode: code,
    statusMessage: typeof status.message === 'string' ? status.message : '',
    attributes: attributesOf(listAt(s, 'attributes', path), path),
    resource,
    events: listAt(s, 'events', path).map((e, i) => ({
      name: typeof e.name === 'string' ? e.name : '',
      attributes: attributesOf(
        listAt(e, 'attributes', `${path}.events[${i}]`),
        `${path}.events[${i}]`,
      ),
    })),
  };
}
