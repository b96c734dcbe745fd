import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import protobuf from 'protobufjs/light.js';
import { TimeSlice } from '../../kernel/time-slice.ts';
import { IngestError } from '../outcomes.ts';
import { jsonSpans } from './decode-json.ts';
import { protobufSpans } from './decode-protobuf.ts';
import { OTLP_MAX_INFLATED_BYTES, OTLP_MAX_VALUE_DEPTH } from './limits.ts';
import type { OtlpEncoding, OtlpSpan } from './span.ts';
import { SpanCollector } from './span-collector.ts';
import { unreadable } from './span-of.ts';
import { OTLP_TRACE_DESCRIPTOR } from './trace-descriptor.ts';

export type { Attributes, AttributeValue, OtlpEncoding, OtlpSpan } from './span.ts';

const root = protobuf.Root.fromJSON(OTLP_TRACE_DESCRIPTOR);
const ExportResponse = root.lookupType(
  'opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse',
);

const inflate = promisify(gunzip);

/** The body as sent, or its gzip content (the one coding OTLP/HTTP defines). */
export async function inflated(body: Buffer, gzipped: boolean): Promise<Buffer> {
  if (!gzipped) return body;
  try {
    return await inflate(body, { maxOutputLength: OTLP_MAX_INFLATED_BYTES });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new IngestError(
        'otlp-too-large',
        `The gzip body expands to more than ${OTLP_MAX_INFLATED_BYTES / 1024 / 1024} MiB, the most one request may unpack to; send fewer spans per request`,
        { limit: OTLP_MAX_INFLATED_BYTES },
      );
    }
    throw unreadable(`The body is not valid gzip: ${(error as Error).message}`);
  }
}

/**
 * The spans of an OTLP trace export, decoded a span at a time under the export's limits (a
 * body past one is an `otlp-too-large` outcome) with the event loop handed back between spans
 * when `slice` is used up; a body that is not an export is an `otlp-unreadable` outcome.
 */
export async function decodeTraces(
  body: Buffer,
  encoding: OtlpEncoding,
  slice: TimeSlice = new TimeSlice(),
): Promise<OtlpSpan[]> {
  const out = new SpanCollector(encoding, slice);
  if (encoding === 'json') {
    await jsonSpans(body, out);
    return out.spans;
  }
  try {
    await protobufSpans(body, out);
  } catch (error) {
    if (error instanceof IngestError) throw error;
    // protobufjs stops at 100 nested messages (about 32 nested values), or at the stack.
    const message = /max depth|call stack/i.test((error as Error).message)
      ? `values nest far deeper than the ${OTLP_MAX_VALUE_DEPTH} levels allowed`
      : (error as Error).message;
    throw unreadable(`The body is not a protobuf ExportTraceServiceRequest: ${message}`);
  }
  return out.spans;
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
