/**
 * The limits of one OTLP trace export (docs/wire-format.md). Each is checked while the body is
 * inflated or decoded, so a request past one stops there: nothing of it is stored, and the work
 * it cost is bounded by the limit, not by what the sender packed into the body.
 *
 * They are generous for real exporters: a Collector batch of 40,000 GenAI spans with their
 * prompts is about 16.7 MB of protobuf, inside all of them.
 */

/** A body as sent (compressed or not); collectors batch thousands of spans with their text. */
export const OTLP_MAX_BODY_BYTES = 16 * 1024 * 1024;

/** A gzip body may expand to at most this much; inflating stops as soon as it passes. */
export const OTLP_MAX_INFLATED_BYTES = 32 * 1024 * 1024;

/**
 * Spans in one export. A Collector's batch processor sends 8,192 by default; an empty span is
 * two bytes of protobuf, so without a count 32 MiB would be 16.8 million spans.
 */
export const OTLP_MAX_SPANS = 100_000;

/**
 * Attributes in one list: a span's, one of its events', its resource's or a `kvlistValue`'s.
 * The SDKs keep 128 unless configured otherwise; OpenLLMetry's indexed `gen_ai.prompt.N.*`
 * attributes of a long conversation are a few hundred.
 */
export const OTLP_MAX_ATTRIBUTES = 4096;

/**
 * How deeply attribute values may nest (`arrayValue` and `kvlistValue` inside each other): a
 * scalar is depth 1. The same as the free-form JSON of an event's metadata.
 */
export const OTLP_MAX_VALUE_DEPTH = 32;

/**
 * Exports of one org decoded and accepted at once in this process; past it an export is
 * refused with 429 and `Retry-After`, which every OTLP exporter retries. Small exports answer
 * in milliseconds, so only an org sending many large exports at once meets it.
 */
export const OTLP_EXPORTS_PER_ORG = 4;

/** What a refused export is told to wait, in seconds: a large export takes a second or two. */
export const OTLP_BUSY_RETRY_AFTER_SECONDS = 2;
