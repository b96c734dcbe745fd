import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { trace } from '@opentelemetry/api';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { startTracing } from '../src/tracing.ts';
import { devEnv, freePort, startServer } from './support/process.ts';
import { describeTracedServer } from './support/traced-server.ts';

// A server on the embedded database; tracing.postgres.test.ts runs the same on PostgreSQL.
describeTracedServer(
  'traces exported to an OTLP endpoint (embedded database)',
  async () => ({ env: {}, drop: async () => {} }),
  { postgresServer: false },
);

describe('traces without an endpoint', () => {
  it('are requested only by an OTLP endpoint variable, and not when the SDK is disabled', () => {
    const base = { ARBITER_DATA_DIR: tmpdir() };
    expect(loadConfig(base).traces).toBe(false);
    expect(loadConfig({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: '' }).traces).toBe(false);
    expect(loadConfig({ ...base, OTEL_SERVICE_NAME: 'x' }).traces).toBe(false);
    const endpoint = { ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(loadConfig(endpoint).traces).toBe(true);
    expect(
      loadConfig({ ...base, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' }).traces,
    ).toBe(true);
    expect(loadConfig({ ...endpoint, OTEL_SDK_DISABLED: 'true' }).traces).toBe(false);
    expect(loadConfig({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' }).traces).toBe(false);
  });

  it('start no SDK: no provider is registered and the API tracer records nothing', async () => {
    const config = loadConfig({ ARBITER_DATA_DIR: tmpdir() });
    expect(await startTracing(config, pino({ level: 'silent' }))).toBeNull();
    const span = trace.getTracer('arbiter').startSpan('probe');
    expect(span.isRecording()).toBe(false);
    expect(span.spanContext().traceId).toBe('0'.repeat(32));
    span.end();
  });
});

describe('traces to a collector that does not answer', () => {
  it('still shut down gracefully, and the log says the spans were not exported', async () => {
    const closedPort = await freePort();
    const server = await startServer({
      ...devEnv(mkdtempSync(join(tmpdir(), 'arbiter-traces-down-'))),
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${closedPort}`,
      OTEL_BSP_SCHEDULE_DELAY: '600000',
      ARBITER_SHUTDOWN_DELAY_SECONDS: '0',
    });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(server.output()).toContain('the last traces were not exported');
    expect(server.output()).not.toContain('stopping hard');
  });
});
