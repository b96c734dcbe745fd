import type { TimeSlice } from '../../kernel/time-slice.ts';
import { IngestError } from '../outcomes.ts';
import { OTLP_MAX_SPANS } from './limits.ts';
import type { Attributes, OtlpEncoding, OtlpSpan } from './span.ts';
import { attributesOf, listAt, objectAt, spanOf } from './span-of.ts';

type Json = Record<string, unknown>;

const NO_ATTRIBUTES: Attributes = new Map();

export function tooManySpans(): IngestError {
  return new IngestError(
    'otlp-too-large',
    `The export has more than ${OTLP_MAX_SPANS} spans, the most one request may carry; send fewer spans per request`,
    { limit: OTLP_MAX_SPANS },
  );
}

/**
 * The spans of one export as either encoding's walk finds them: counted against the span limit
 * before each is decoded, with the event loop handed back between spans when the request's
 * time slice is used up.
 */
export class SpanCollector {
  readonly spans: OtlpSpan[] = [];

  constructor(
    readonly encoding: OtlpEncoding,
    readonly slice: TimeSlice,
  ) {}

  get count(): number {
    return this.spans.length;
  }

  /** Call before decoding the next span: refuses the one past the limit, pauses when due. */
  async next(): Promise<void> {
    if (this.spans.length >= OTLP_MAX_SPANS) throw tooManySpans();
    if (this.slice.due) await this.slice.pause();
  }

  add(span: Json, path: string): void {
    this.spans.push(spanOf(span, path, NO_ATTRIBUTES, this.encoding));
  }

  /**
   * Gives the spans collected since `first` their resource's attributes: a ResourceSpans may
   * carry its resource after its spans (JSON keys and protobuf fields come in any order).
   */
  setResource(first: number, resourceSpans: Json, path: string): void {
    const attributes = attributesOf(
      listAt(objectAt(resourceSpans, 'resource', path), 'attributes', `${path}.resource`),
      `${path}.resource`,
    );
    if (attributes.size === 0) return;
    for (let i = first; i < this.spans.length; i++)
      (this.spans[i] as OtlpSpan).resource = attributes;
  }
}
