import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import protobuf from 'protobufjs/light.js';
import { IngestError } from '../outcomes.ts';
import { OTLP_TRACE_DESCRIPTOR } from './trace-descriptor.ts';

/** The two bodies OTLP/HTTP defines: binary protobuf and OTLP JSON. */
export type OtlpEncoding = 'protobuf' | 'json';

/** An attribute's value as plain data: a kvlist becomes an object, bytes become base64 text. */
export type AttributeValue =
  | string
  | number
  | boolean
  | null
  | AttributeValue[]
  | { [key: string]: AttributeValue };

export type Attributes = ReadonlyMap<string, AttributeValue>;

/** One span as the GenAI mapping reads it, whichever encoding it came in. */
export interface OtlpSpan {
  /** Lowercase hex, 32 digits; null when the span carried no valid trace id. */
  traceId: string | null;
  /** Lowercase hex, 16 digits; null when the span carried no valid span id. */
  spanId: string | null;
  startNs: bigint | null;
  endNs: bigint | null;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  statusMessage: string;
  attributes: Attributes;
  resource: Attributes;
  events: ReadonlyArray<{ name: string; attributes: Attributes }>;
}

/** A compressed body may expand to at most this much; a gzip bomb stops there. */
export const OTLP_MAX_INFLATED_BYTES = 32 * 1024 * 1024;

const root = protobuf.Root.fromJSON(OTLP_TRACE_DESCRIPTOR);
const ExportRequest = root.lookupType(
  'opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest',
);
const ExportResponse = root.lookupType(
  'opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse',
);

const inflate = promisify(gunzip);

function unreadable(detail: string): IngestError {
  return new IngestError('otlp-unreadable', detail);
}

/** The body as sent, or its gzip content (the one coding OTLP/HTTP defines). */
export async function inflated(body: Buffer, gzipped: boolean): Promise<Buffer> {
  if (!gzipped) return body;
  try {
    return await inflate(body, { maxOutputLength: OTLP_MAX_INFLATED_BYTES });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new IngestError(
        'otlp-too-large',
        `The gzip body expands to more than ${OTLP_MAX_INFLATED_BYTES / 1024 / 1024} MiB; send fewer spans per request`,
      );
    }
    throw unreadable(`The body is not valid gzip: ${(error as Error).message}`);
  }
}

type Json = Record<string, unknown>;

const HEX_ID = /^[0-9a-fA-F]+$/;

const STATUS_NAMES: Record<string, number> = {
  STATUS_CODE_UNSET: 0,
  STATUS_CODE_OK: 1,
  STATUS_CODE_ERROR: 2,
};

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

function nanosOf(value: unknown): bigint | null {
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  try {
    const ns = BigInt(value);
    return ns > 0n ? ns : null;
  } catch {
    return null;
  }
}

function listAt(parent: Json, key: string, path: string): Json[] {
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

function objectAt(parent: Json, key: string, path: string): Json {
  const value = parent[key];
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw unreadable(`${path}.${key}: is not an object`);
  }
  return value as Json;
}

/** An OTLP AnyValue (`{stringValue: …}` and its siblings) as plain data. */
function plainValue(any: unknown): AttributeValue {
  if (typeof any !== 'object' || any === null) return null;
  const v = any as Json;
  if (typeof v.stringValue === 'string') return v.stringValue;
  if (typeof v.boolValue === 'boolean') return v.boolValue;
  if (typeof v.intValue === 'string' || typeof v.intValue === 'number') return Number(v.intValue);
  if (typeof v.doubleValue === 'number') return v.doubleValue;
  if (typeof v.bytesValue === 'string') return v.bytesValue;
  const array = v.arrayValue as Json | undefined;
  if (array !== undefined && Array.isArray(array.values)) return array.values.map(plainValue);
  const kvlist = v.kvlistValue as Json | undefined;
  if (kvlist !== undefined && Array.isArray(kvlist.values)) {
    return Object.fromEntries(attributesOf(kvlist.values as Json[]));
  }
  return null;
}

function attributesOf(list: readonly Json[]): Map<string, AttributeValue> {
  const out = new Map<string, AttributeValue>();
  for (const kv of list) if (typeof kv.key === 'string') out.set(kv.key, plainValue(kv.value));
  return out;
}

function spanOf(s: Json, path: string, resource: Attributes, encoding: OtlpEncoding): OtlpSpan {
  const status = objectAt(s, 'status', path);
  // OTLP JSON sends the enum as an integer; a sender using proto3's JSON mapping sends its name.
  const code =
    typeof status.code === 'number' ? status.code : (STATUS_NAMES[String(status.code)] ?? 0);
  return {
    traceId: idOf(s.traceId, 16, encoding),
    spanId: idOf(s.spanId, 8, encoding),
    startNs: nanosOf(s.startTimeUnixNano),
    endNs: nanosOf(s.endTimeUnixNano),
    statusCode: code,
    statusMessage: typeof status.message === 'string' ? status.message : '',
    attributes: attributesOf(listAt(s, 'attributes', path)),
    resource,
    events: listAt(s, 'events', path).map((e, i) => ({
      name: typeof e.name === 'string' ? e.name : '',
      attributes: attributesOf(listAt(e, 'attributes', `${path}.events[${i}]`)),
    })),
  };
}

/** Every span of an ExportTraceServiceRequest in the camelCase object form both encodings share. */
function spansOf(request: Json, encoding: OtlpEncoding): OtlpSpan[] {
  const spans: OtlpSpan[] = [];
  for (const [r, rs] of listAt(request, 'resourceSpans', 'request').entries()) {
    const at = `resourceSpans[${r}]`;
    const resource = attributesOf(listAt(objectAt(rs, 'resource', at), 'attributes', at));
    for (const [s, ss] of listAt(rs, 'scopeSpans', at).entries()) {
      const scopeAt = `${at}.scopeSpans[${s}]`;
      for (const [i, span] of listAt(ss, 'spans', scopeAt).entries()) {
        spans.push(spanOf(span, `${scopeAt}.spans[${i}]`, resource, encoding));
      }
    }
  }
  return spans;
}

function parsedJson(body: Buffer): Json {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw unreadable(`The body is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw unreadable('The body is not an OTLP ExportTraceServiceRequest object');
  }
  return value as Json;
}

function decodedProtobuf(body: Buffer): Json {
  try {
    const message = ExportRequest.decode(body);
    return ExportRequest.toObject(message, { longs: String, enums: Number, bytes: String });
  } catch (error) {
    throw unreadable(
      `The body is not a protobuf ExportTraceServiceRequest: ${(error as Error).message}`,
    );
  }
}

/** The spans of an OTLP trace export; a body that is not one is an `otlp-unreadable` outcome. */
export function decodeTraces(body: Buffer, encoding: OtlpEncoding): OtlpSpan[] {
  const request = encoding === 'json' ? parsedJson(body) : decodedProtobuf(body);
  return spansOf(request, encoding);
}

/** What was refused, for the ExportTraceServiceResponse. */
export interface PartialSuccess {
  rejectedSpans: number;
  errorMessage: string;
}

function isEmpty(partial: PartialSuccess): boolean {
  return partial.rejectedSpans === 0 && partial.errorMessage === '';
}

/** The OTLP JSON ExportTraceServiceResponse; `{}` on full success. */
export function jsonResponse(partial: PartialSuccess): {
  partialSuccess?: { rejectedSpans: string; errorMessage: string };
} {
  if (isEmpty(partial)) return {};
  // proto3's JSON mapping writes an int64 as a decimal string; OTLP receivers read both.
  return {
    partialSuccess: {
      rejectedSpans: String(partial.rejectedSpans),
      errorMessage: partial.errorMessage,
    },
  };
}

/** The protobuf ExportTraceServiceResponse; empty on full success. */
export function protobufResponse(partial: PartialSuccess): Buffer {
  const message = ExportResponse.fromObject(
    isEmpty(partial)
      ? {}
      : {
          partialSuccess: {
            rejectedSpans: partial.rejectedSpans,
            errorMessage: partial.errorMessage,
          },
        },
  );
  return Buffer.from(ExportResponse.encode(message).finish());
}
