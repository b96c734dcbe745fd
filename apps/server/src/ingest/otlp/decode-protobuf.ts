import protobuf from 'protobufjs/light.js';
import { OTLP_MAX_SPANS } from './limits.ts';
import { type SpanCollector, tooManySpans } from './span-collector.ts';
import { OTLP_TRACE_DESCRIPTOR } from './trace-descriptor.ts';

type Json = Record<string, unknown>;

const root = protobuf.Root.fromJSON(OTLP_TRACE_DESCRIPTOR);
const SpanType = root.lookupType('opentelemetry.proto.trace.v1.Span');
const ResourceType = root.lookupType('opentelemetry.proto.resource.v1.Resource');

/** Field numbers of the three messages above the span, all length-delimited. */
const RESOURCE_SPANS = 1;
const RESOURCE = 1;
const SCOPE_SPANS = 2;
const SPANS = 2;
const LENGTH_DELIMITED = 2;

const AS_OBJECT = { longs: String, enums: Number, bytes: String } as const;

/**
 * Walks the repeated fields of one message from the reader's position to `end`, handing each
 * length-delimited field of interest to `visit` with the end of its bytes; the rest is skipped.
 */
async function eachField(
  reader: protobuf.Reader,
  end: number,
  visit: (field: number, end: number) => Promise<void> | void,
): Promise<void> {
  while (reader.pos < end) {
    const tag = reader.uint32();
    const wireType = tag & 7;
    if (wireType !== LENGTH_DELIMITED) {
      reader.skipType(wireType);
      continue;
    }
    const length = reader.uint32();
    const fieldEnd = reader.pos + length;
    if (fieldEnd > end) throw new RangeError(`a field's length ${length} runs past its message`);
    await visit(tag >>> 3, fieldEnd);
    reader.pos = fieldEnd;
  }
  if (reader.pos !== end) throw new RangeError('a field runs past its message');
}

function decoded(type: protobuf.Type, reader: protobuf.Reader, end: number): Json {
  const message = type.decode(reader, end - reader.pos);
  return type.toObject(message, AS_OBJECT);
}

async function scopeSpans(reader: protobuf.Reader, end: number, out: SpanCollector, at: string) {
  let i = 0;
  await eachField(reader, end, async (field, fieldEnd) => {
    if (field !== SPANS) return;
    await out.next();
    out.add(decoded(SpanType, reader, fieldEnd), `${at}.spans[${i++}]`);
  });
}

async function resourceSpans(reader: protobuf.Reader, end: number, out: SpanCollector, at: string) {
  const first = out.count;
  let resource: Json = {};
  let s = 0;
  await eachField(reader, end, async (field, fieldEnd) => {
    if (field === RESOURCE) resource = decoded(ResourceType, reader, fieldEnd);
    else if (field === SCOPE_SPANS)
      await scopeSpans(reader, fieldEnd, out, `${at}.scopeSpans[${s++}]`);
  });
  out.setResource(first, { resource }, at);
}

/**
 * Walks the length-delimited fields `field` of one message on the wire, skipping their bytes.
 * `partial`: the body is a prefix of the export, so a field may run past its end.
 */
function countFields(
  reader: protobuf.Reader,
  end: number,
  field: number,
  inside: (end: number) => void,
  partial: boolean,
): void {
  while (reader.pos < end) {
    const tag = reader.uint32();
    if ((tag & 7) !== LENGTH_DELIMITED) {
      reader.skipType(tag & 7);
      continue;
    }
    const length = reader.uint32();
    let fieldEnd = reader.pos + length;
    if (fieldEnd > end) {
      if (!partial) throw new RangeError(`a field's length ${length} runs past its message`);
      fieldEnd = end;
    }
    if (tag >>> 3 === field) inside(fieldEnd);
    reader.pos = fieldEnd;
  }
}

/**
 * Counts the spans on the wire before any is decoded, allocating nothing: a body of millions of
 * empty spans is refused in milliseconds, however little each span takes to decode. With
 * `partial`, `body` is the start of an export still being inflated: the spans in it count.
 */
export function checkSpanCount(body: Buffer, partial = false): void {
  const reader = protobuf.Reader.create(body);
  let spans = 0;
  const fields = (end: number, field: number, inside: (end: number) => void) =>
    countFields(reader, end, field, inside, partial);
  try {
    fields(body.length, RESOURCE_SPANS, (r) =>
      fields(r, SCOPE_SPANS, (s) =>
        fields(s, SPANS, () => {
          if (++spans > OTLP_MAX_SPANS) throw tooManySpans();
        }),
      ),
    );
  } catch (error) {
    // A prefix may end inside a tag or a length.
    if (partial && error instanceof RangeError) return;
    throw error;
  }
}

/**
 * The spans of a protobuf ExportTraceServiceRequest, one at a time: the three messages above
 * the spans are walked on the wire, and each span is decoded alone, counted before it is, with
 * the event loop handed back between spans when the collector's time slice is used up.
 */
export async function protobufSpans(body: Buffer, out: SpanCollector): Promise<void> {
  checkSpanCount(body);
  const reader = protobuf.Reader.create(body);
  let r = 0;
  await eachField(reader, body.length, async (field, fieldEnd) => {
    if (field === RESOURCE_SPANS)
      await resourceSpans(reader, fieldEnd, out, `resourceSpans[${r++}]`);
  });
}
