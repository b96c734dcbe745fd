import { createGunzip } from 'node:zlib';
import protobuf from 'protobufjs/light.js';
import { TimeSlice } from '../../kernel/time-slice.ts';
import { IngestError } from '../outcomes.ts';
import { jsonSpans } from './decode-json.ts';
import { checkSpanCount, protobufSpans } from './decode-protobuf.ts';
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

/** Unpacked bytes at which a protobuf body being inflated has its spans counted so far. */
const FIRST_COUNT_BYTES = 1024 * 1024;

function tooLarge(): IngestError {
  return new IngestError(
    'otlp-too-large',
    `The gzip body expands to more than ${OTLP_MAX_INFLATED_BYTES / 1024 / 1024} MiB, the most one request may unpack to; send fewer spans per request`,
    { limit: OTLP_MAX_INFLATED_BYTES },
  );
}

/**
 * Inflates a gzip body, stopping as soon as it passes the unpacked limit or, for protobuf, as
 * soon as the spans unpacked so far pass the span limit (counted at 1, 4 and 16 MiB): a bomb
 * of empty spans stops within its first megabyte.
 */
function inflateChecked(body: Buffer, encoding: OtlpEncoding): Promise<Buffer> {
  const gunzip = createGunzip();
  let chunks: Buffer[] = [];
  let total = 0;
  let nextCount = FIRST_COUNT_BYTES;
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      gunzip.destroy();
      reject(error);
    };
    gunzip.on('data', (chunk: Buffer) => {
      if (settled) return;
      chunks.push(chunk);
      total += chunk.length;
      if (total > OTLP_MAX_INFLATED_BYTES) return fail(tooLarge());
      if (encoding !== 'protobuf' || total < nextCount) return;
      nextCount *= 4;
      chunks = [Buffer.concat(chunks, total)];
      try {
        checkSpanCount(chunks[0] as Buffer, true);
      } catch (error) {
        fail(error);
      }
    });
    gunzip.on('error', fail);
    gunzip.on('end', () => {
      settled = true;
      resolve(Buffer.concat(chunks, total));
    });
    gunzip.end(body);
  });
}

/** The body as sent, or its gzip content (the one coding OTLP/HTTP defines). */
export async function inflated(
  body: Buffer,
  gzipped: boolean,
  encoding: OtlpEncoding = 'protobuf',
): Promise<Buffer> {
  if (!gzipped) return body;
  try {
    return await inflateChecked(body, encoding);
  } catch (error) {
    if (error instanceof IngestError) throw error;
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
