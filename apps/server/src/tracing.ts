import { DiagLogLevel, diag, type Span } from '@opentelemetry/api';
import type { FastifyPluginCallback, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config.ts';

/** The process's trace export, once started. */
export interface Tracing {
  /** @fastify/otel's plugin, registered first in the app: a span per request. */
  plugin: FastifyPluginCallback;
  /** Exports the spans still buffered, then stops; called at the end of a graceful shutdown. */
  shutdown(): Promise<void>;
}

/** The service's name unless OTEL_SERVICE_NAME (or OTEL_RESOURCE_ATTRIBUTES) says otherwise. */
export const DEFAULT_SERVICE_NAME = 'arbiter';

/**
 * The request span as the HTTP semantic conventions name it: `{method} {route}` (the method
 * alone for a URL no route matches), and `url.path` without the query string, which may carry
 * values; @fastify/otel sets `http.request.method`, `http.route` and the response's
 * `http.response.status_code` itself.
 */
function describeRequest(span: Span, request: FastifyRequest): void {
  const route = request.routeOptions.url;
  span.updateName(route === undefined ? request.method : `${request.method} ${route}`);
  span.setAttributes({
    'url.path': request.url.split('?', 1)[0] ?? request.url,
    'url.scheme': request.protocol,
    'network.protocol.version': request.raw.httpVersion,
  });
}

/**
 * The SDK's own warnings and errors (an export the collector refused or never answered, say)
 * as warn lines of the process's log; its chatter below that level is dropped.
 */
function reportSdkProblems(log: Logger): void {
  const warn = (message: string, ...args: unknown[]) =>
    log.warn({ otel: args.length > 0 ? args.map(String) : undefined }, `OpenTelemetry: ${message}`);
  const quiet = () => {};
  diag.setLogger(
    { error: warn, warn, info: quiet, debug: quiet, verbose: quiet },
    { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
}

/**
 * Starts the OpenTelemetry SDK when `config.traces` (an OTLP endpoint is set): a tracer
 * provider with the OTLP/HTTP exporter behind a batch processor, registered as the API's
 * global one (with the async-context manager and W3C propagation), so the spans the layers
 * start through `kernel/tracing.ts` record and nest. Exporter, batching and sampler read their
 * standard OTEL_* variables themselves. Without an endpoint nothing is loaded or registered:
 * the API stays on its no-op tracer. The SDK is imported here only, so a start without
 * traces does not load it.
 */
export async function startTracing(
  config: Pick<Config, 'traces'>,
  log: Logger,
): Promise<Tracing | null> {
  if (!config.traces) return null;
  reportSdkProblems(log);
  const [{ NodeTracerProvider }, { BatchSpanProcessor }, { OTLPTraceExporter }, resources, otel] =
    await Promise.all([
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/sdk-trace-base'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@fastify/otel'),
    ]);
  // Later wins: the SDK's own attributes, our default name, then OTEL_SERVICE_NAME and
  // OTEL_RESOURCE_ATTRIBUTES.
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': DEFAULT_SERVICE_NAME }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
  // No span per hook or handler: a request's tree is its span, its statements and its runs.
  // No exception events: an error's message and stack may quote a value; the log has them.
  const instrumentation = new otel.FastifyOtelInstrumentation({
    instrumentHooks: false,
    instrumentHandler: false,
    recordExceptions: false,
    requestHook: describeRequest,
  });
  instrumentation.setTracerProvider(provider);
  return {
    plugin: instrumentation.plugin() as FastifyPluginCallback,
    shutdown: () => provider.shutdown(),
  };
}
