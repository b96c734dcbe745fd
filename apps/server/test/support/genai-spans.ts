import {
  type Attributes,
  type DiagLogger,
  DiagLogLevel,
  diag,
  SpanKind,
  SpanStatusCode,
} from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';

/** One hand-made span: its attributes, when it ran, and whether it failed. */
export interface SpanSpec {
  name?: string;
  attributes: Attributes;
  startMs: number;
  durationMs: number;
  error?: string;
}

/**
 * Spans made with the real OpenTelemetry SDK (a tracer provider with the given resource), ended
 * and collected in memory, so a test can hand the very same spans to any exporter.
 */
export function makeSpans(resource: Attributes, specs: readonly SpanSpec[]): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes(resource),
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  const tracer = provider.getTracer('arbiter-otlp-test');
  for (const spec of specs) {
    const span = tracer.startSpan(spec.name ?? 'chat', {
      kind: SpanKind.CLIENT,
      attributes: spec.attributes,
      startTime: spec.startMs,
    });
    if (spec.error !== undefined) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: spec.error });
    }
    span.end(spec.startMs + spec.durationMs);
  }
  return memory.getFinishedSpans();
}

/** Exports spans with a real OTLP exporter; resolves with what the exporter concluded. */
export function exportSpans(
  exporter: SpanExporter,
  spans: ReadableSpan[],
): Promise<{ ok: boolean; error?: Error }> {
  // ExportResultCode.SUCCESS of @opentelemetry/core, which is no dependency of its own here.
  const SUCCESS = 0;
  return new Promise((resolve) => {
    exporter.export(spans, (result) =>
      resolve({ ok: result.code === SUCCESS, error: result.error }),
    );
  });
}

/** The exporters' diagnostic warnings (where they report a partial success), while `fn` runs. */
export async function exporterWarnings(fn: () => Promise<unknown>): Promise<string[]> {
  const warnings: string[] = [];
  const ignore = () => {};
  const logger: DiagLogger = {
    error: ignore,
    warn: (...args: unknown[]) => warnings.push(args.map(String).join(' ')),
    info: ignore,
    debug: ignore,
    verbose: ignore,
  };
  diag.setLogger(logger, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
  try {
    await fn();
  } finally {
    diag.disable();
  }
  return warnings;
}
