import {
  type Attributes,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';

/**
 * Spans through the OpenTelemetry API. Without an exporter endpoint no SDK is registered, and
 * the API hands out its no-op tracer: these calls then record nothing and cost next to nothing.
 * With one, `tracing.ts` registers the SDK's provider and the same calls record.
 */
export function tracer(): Tracer {
  return trace.getTracer('arbiter');
}

/** Whether a span that records is active: the parent a child span would have. */
export function insideRecordingSpan(): boolean {
  return trace.getActiveSpan()?.isRecording() === true;
}

/**
 * Marks the span failed with the error's class (a database error's SQLSTATE code, say), never
 * its message: a database's message may quote a value (`invalid input syntax for type uuid:
 * "…"`). The log line of the failure has the message.
 */
export function recordFailure(span: Span, error: unknown): void {
  const code = (error as { code?: unknown } | null)?.code;
  const type =
    typeof code === 'string' ? code : error instanceof Error ? error.constructor.name : 'Error';
  span.setAttribute('error.type', type);
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/**
 * `work` inside an active span named `name`: the spans it starts (database statements, say)
 * are its children. The span ends when `work` settles; a throw marks it failed and goes on.
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  return tracer().startActiveSpan(name, { attributes, kind }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      recordFailure(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** A span for work already done (from `startedAt` to now), under the active span if any. */
export function recordSpan(name: string, startedAt: number, attributes: Attributes): void {
  tracer().startSpan(name, { attributes, startTime: startedAt }).end();
}
