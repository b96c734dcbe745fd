import { gzipSync } from 'node:zlib';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { and, eq } from 'drizzle-orm';
import protobuf from 'protobufjs/light.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.ts';
import { events } from '../../../src/db/schema.ts';
import type { App } from '../../../src/http/app-types.ts';
import { OTLP_TRACE_DESCRIPTOR } from '../../../src/ingest/otlp/trace-descriptor.ts';
import { exporterWarnings, exportSpans, makeSpans } from '../../support/genai-spans.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import { storedEvents } from '../../support/stored-events.ts';

let h: Harness;
let app: App;
let origin: string;
let acme: Awaited<ReturnType<Harness['org']>>;
let experimentId: string;
const TRACES = '/v1/otlp/v1/traces';

beforeAll(async () => {
  h = await startHarness();
  acme = await h.org('otlp-acme');
  experimentId = await h.experiment(acme.admin, { name: 'otlp-exp' });
  // The exporters speak HTTP: a second app on the harness's context, on a real socket.
  app = await buildApp(h.ctx, { logger: false });
  origin = await app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await app.close();
  await h.close();
});

const protobufExporter = (key: string, compression: 'gzip' | 'none' = 'none') =>
  new ProtobufExporter({
    url: `${origin}${TRACES}`,
    headers: { 'x-api-key': key },
    compression: compression as never,
  });
const jsonExporter = (key: string, compression: 'gzip' | 'none' = 'none') =>
  new JsonExporter({
    url: `${origin}${TRACES}`,
    headers: { 'x-api-key': key },
    compression: compression as never,
  });

async function storedOf(orgId: string) {
  return storedEvents(h, eq(events.orgId, orgId));
}
async function storedEvent(orgId: string, eventId: string) {
  const [row] = await storedEvents(h, and(eq(events.orgId, orgId), eq(events.eventId, eventId)));
  return row;
}
const idOf = (span: ReadableSpan) => `${span.spanContext().traceId}-${span.spanContext().spanId}`;

/** A chat span as the current GenAI conventions describe one. */
const chatAttributes = (user: string) => ({
  'gen_ai.operation.name': 'chat',
  'gen_ai.provider.name': 'openai',
  'gen_ai.request.model': 'gpt-4o',
  'gen_ai.response.model': 'gpt-4o-2024-08-06',
  'gen_ai.usage.input_tokens': 120,
  'gen_ai.usage.output_tokens': 42,
  'gen_ai.input.messages': JSON.stringify([
    { role: 'system', parts: [{ type: 'text', content: 'Be brief.' }] },
    { role: 'user', parts: [{ type: 'text', content: 'What is OTLP?' }] },
  ]),
  'gen_ai.output.messages': JSON.stringify([
    {
      role: 'assistant',
      parts: [{ type: 'text', content: 'A protocol for telemetry.' }],
      finish_reason: 'stop',
    },
  ]),
  'arbiter.user_id': user,
});

describe('POST /v1/otlp/v1/traces with the OpenTelemetry SDK exporters', () => {
  it('stores a GenAI span sent as protobuf as the model_call POST /v1/events stores', async () => {
    const start = Date.now() - 5_000;
    const spans = makeSpans({ 'service.name': 'chat-app', 'arbiter.experiment': 'otlp-exp' }, [
      { attributes: chatAttributes('alice'), startMs: start, durationMs: 812.5 },
      {
        name: 'GET /health',
        attributes: { 'http.request.method': 'GET' },
        startMs: start,
        durationMs: 3,
      },
    ]);
    const warnings = await exporterWarnings(async () => {
      expect(await exportSpans(protobufExporter(acme.publishable), spans)).toEqual({ ok: true });
    });
    expect(warnings.filter((w) => w.includes('Partial Success'))).toEqual([]);

    // The same call, said as an event to POST /v1/events: the two rows must agree field for field.
    const twin = await h.ingest(acme.publishable, {
      method: 'POST',
      url: '/v1/events',
      payload: {
        events: [
          {
            event_id: 'twin-1',
            type: 'model_call',
            experiment_id: 'otlp-exp',
            user_id: 'alice',
            timestamp: new Date(start).toISOString(),
            latency_ms: 812.5,
            input_tokens: 120,
            output_tokens: 42,
            model: 'gpt-4o-2024-08-06',
            error: null,
            prompt: 'system: Be brief.\nuser: What is OTLP?',
            response: 'A protocol for telemetry.',
          },
        ],
      },
    });
    expect(twin.statusCode).toBe(202);
    const {
      eventId: _a,
      receivedAt: _b,
      txid: _c,
      // The key of the text's object names its event (set with a text store).
      textKey: _g,
      ...fromSpan
    } = (await storedEvent(acme.orgId, idOf(spans[0] as ReadableSpan)))!;
    const {
      eventId: _d,
      receivedAt: _e,
      txid: _f,
      textKey: _h,
      ...fromEvent
    } = (await storedEvent(acme.orgId, 'twin-1'))!;
    expect(fromSpan).toEqual(fromEvent);
    expect(fromSpan).toMatchObject({ type: 'model_call', experimentId, userId: 'alice' });

    // One exposure for alice, in the variant of her call; the health check stored nothing.
    const rows = await storedOf(acme.orgId);
    const exposures = rows.filter((r) => r.type === 'exposure');
    expect(exposures).toHaveLength(1);
    expect(exposures[0]).toMatchObject({
      userId: 'alice',
      experimentId,
      variant: fromSpan.variant,
      occurredAt: new Date(start),
    });
    expect(rows.map((r) => r.eventId).sort()).toEqual(
      [idOf(spans[0] as ReadableSpan), exposures[0]!.eventId, 'twin-1'].sort(),
    );
  });

  it('reads OTLP JSON with gzip, older attribute names, OpenLLMetry text and an error status', async () => {
    const start = Date.now() - 4_000;
    const spans = makeSpans({ 'service.name': 'chat-app' }, [
      {
        attributes: {
          'gen_ai.system': 'openai',
          'llm.request.type': 'chat',
          'gen_ai.request.model': 'gpt-4o-mini',
          'gen_ai.usage.prompt_tokens': 7,
          'gen_ai.usage.completion_tokens': 0,
          'gen_ai.prompt.0.role': 'user',
          'gen_ai.prompt.0.content': 'Say hi',
          'arbiter.experiment': experimentId,
          'arbiter.user_id': 'bob',
          'error.type': 'RateLimitError',
        },
        startMs: start,
        durationMs: 250,
        error: 'Too many requests',
      },
    ]);
    expect(await exportSpans(jsonExporter(acme.secret, 'gzip'), spans)).toEqual({ ok: true });
    expect(await storedEvent(acme.orgId, idOf(spans[0] as ReadableSpan))).toMatchObject({
      type: 'model_call',
      experimentId,
      userId: 'bob',
      occurredAt: new Date(start),
      latencyMs: 250,
      inputTokens: 7,
      outputTokens: 0,
      model: 'gpt-4o-mini',
      error: 'RateLimitError: Too many requests',
      prompt: 'user: Say hi',
      response: null,
    });
  });

  it('stores nothing twice when an export is sent again, in either encoding', async () => {
    const spans = makeSpans({ 'arbiter.experiment': 'otlp-exp' }, [
      { attributes: chatAttributes('carol'), startMs: Date.now() - 3_000, durationMs: 100 },
      { attributes: chatAttributes('carol'), startMs: Date.now() - 2_000, durationMs: 100 },
    ]);
    expect(await exportSpans(protobufExporter(acme.secret, 'gzip'), spans)).toEqual({ ok: true });
    const once = await storedOf(acme.orgId);
    expect(
      once
        .filter((r) => r.userId === 'carol')
        .map((r) => r.type)
        .sort(),
    ).toEqual(['exposure', 'model_call', 'model_call']);
    expect(await exportSpans(protobufExporter(acme.secret), spans)).toEqual({ ok: true });
    expect(await exportSpans(jsonExporter(acme.secret), spans)).toEqual({ ok: true });
    // A later call of carol's carries an exposure again: the first stands, stored once.
    const later = makeSpans({ 'arbiter.experiment': 'otlp-exp' }, [
      { attributes: chatAttributes('carol'), startMs: Date.now() - 1_000, durationMs: 100 },
    ]);
    expect(await exportSpans(jsonExporter(acme.secret), later)).toEqual({ ok: true });
    const after = await storedOf(acme.orgId);
    expect(
      after
        .filter((r) => r.userId === 'carol')
        .map((r) => r.type)
        .sort(),
    ).toEqual(['exposure', 'model_call', 'model_call', 'model_call']);
    expect(after).toHaveLength(once.length + 1);
  });

  it('keeps a long prompt whole with a text store, and cuts it at the row limit without', async () => {
    const long = `${'x'.repeat(250_000)}END`;
    const attributes = {
      ...chatAttributes('dora'),
      'gen_ai.input.messages': JSON.stringify([
        { role: 'user', parts: [{ type: 'text', content: long }] },
      ]),
    };
    const [span] = makeSpans({ 'arbiter.experiment': 'otlp-exp' }, [
      { attributes, startMs: Date.now() - 1_000, durationMs: 100 },
    ]);
    expect(
      await exportSpans(protobufExporter(acme.secret, 'gzip'), [span as ReadableSpan]),
    ).toEqual({
      ok: true,
    });
    const prompt = (await storedEvent(acme.orgId, idOf(span as ReadableSpan)))?.prompt ?? '';
    if (h.ctx.modelText === null) {
      // Kept in the row: cut at the row's 200,000 characters, as wrap cuts it.
      expect(prompt).toHaveLength(200_000);
      expect(prompt).not.toContain('END');
    } else {
      expect(prompt.length).toBeGreaterThan(250_000);
      expect(prompt.endsWith('END')).toBe(true);
    }
  });

  it('reports a GenAI span without the experiment in partial success, and not a plain span', async () => {
    const before = await storedOf(acme.orgId);
    const spans = makeSpans({ 'service.name': 'chat-app' }, [
      { attributes: chatAttributes('dave'), startMs: Date.now() - 2_000, durationMs: 10 },
      {
        name: 'SELECT',
        attributes: { 'db.system.name': 'postgresql' },
        startMs: Date.now() - 2_000,
        durationMs: 1,
      },
    ]);
    const reason = `span ${spans[0]!.spanContext().spanId}: arbiter.experiment is missing`;
    for (const exporter of [protobufExporter(acme.secret), jsonExporter(acme.secret)]) {
      const warnings = await exporterWarnings(async () => {
        expect(await exportSpans(exporter, spans)).toEqual({ ok: true });
      });
      const partial = warnings.filter((w) => w.includes('Partial Success'));
      expect(partial).toHaveLength(1);
      expect(partial[0]).toContain('"rejectedSpans":');
      expect(partial[0]).toContain(reason);
    }
    expect(await storedOf(acme.orgId)).toHaveLength(before.length);
  });
});

describe('POST /v1/otlp/v1/traces answers', () => {
  const root = protobuf.Root.fromJSON(OTLP_TRACE_DESCRIPTOR);
  const Request = root.lookupType(
    'opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest',
  );
  const Response = root.lookupType(
    'opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse',
  );
  const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
  const attribute = (key: string, value: string | number) => ({
    key,
    value: typeof value === 'string' ? { stringValue: value } : { intValue: String(value) },
  });
  /** An OTLP JSON export of chat spans, one per user (an empty user leaves the attribute out). */
  const jsonExport = (users: string[], experiment: string | null = 'otlp-exp') => {
    const nanos = BigInt(Date.now() - 1_000) * 1_000_000n;
    return {
      resourceSpans: [
        {
          resource: {
            attributes: experiment === null ? [] : [attribute('arbiter.experiment', experiment)],
          },
          scopeSpans: [
            {
              spans: users.map((user, i) => ({
                traceId: hex(0xabc, 32),
                spanId: hex(i + 1, 16),
                name: 'chat',
                kind: 3,
                startTimeUnixNano: String(nanos),
                endTimeUnixNano: (nanos + 2_000_000n).toString(),
                attributes: [
                  attribute('gen_ai.operation.name', 'chat'),
                  attribute('gen_ai.usage.input_tokens', 5),
                  ...(user === '' ? [] : [attribute('arbiter.user_id', user)]),
                ],
                status: { code: 1 },
              })),
            },
          ],
        },
      ],
    };
  };
  const post = (body: string | Buffer, headers: Record<string, string>, key = acme.secret) =>
    h.ingest(key, { method: 'POST', url: TRACES, payload: body, headers });

  it('answers 202 with an empty ExportTraceServiceResponse in the encoding of the request', async () => {
    const json = await post(JSON.stringify(jsonExport(['erin'])), {
      'content-type': 'application/json',
    });
    expect(json.statusCode).toBe(202);
    expect(json.headers['content-type']).toMatch(/^application\/json/);
    expect(json.json()).toEqual({});
    // proto3's JSON mapping: null is the field's default, no spans.
    const none = await post('{"resourceSpans":null}', { 'content-type': 'application/json' });
    expect([none.statusCode, none.json()]).toEqual([202, {}]);
    const pb = await post(Buffer.from(Request.encode(Request.fromObject({})).finish()), {
      'content-type': 'application/x-protobuf',
    });
    expect(pb.statusCode).toBe(202);
    expect(pb.headers['content-type']).toBe('application/x-protobuf');
    expect(Response.toObject(Response.decode(pb.rawPayload))).toEqual({});
  });

  it('counts and explains rejected spans, in JSON and in protobuf', async () => {
    const body = jsonExport(['frank', ''], null);
    const json = await post(JSON.stringify(body), { 'content-type': 'application/json' });
    expect(json.statusCode).toBe(202);
    const message =
      '2 GenAI spans rejected; span 0000000000000001: arbiter.experiment is missing; set it as a span or resource attribute, or as a W3C baggage entry copied onto the span; span 0000000000000002: arbiter.experiment is missing; set it as a span or resource attribute, or as a W3C baggage entry copied onto the span';
    expect(json.json()).toEqual({ partialSuccess: { rejectedSpans: '2', errorMessage: message } });

    const withExperiment = jsonExport(['frank', ''], 'no-such-experiment');
    const converted = await post(JSON.stringify(withExperiment), {
      'content-type': 'application/json',
    });
    expect(converted.json().partialSuccess).toEqual({
      rejectedSpans: '2',
      errorMessage:
        '2 GenAI spans rejected; span 0000000000000001: experiment_id: no experiment "no-such-experiment" in this org; span 0000000000000002: arbiter.user_id is missing; set it as a span or resource attribute, or as a W3C baggage entry copied onto the span',
    });
    const pb = await post(gzipSync(JSON.stringify(body)), {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    });
    expect(pb.json().partialSuccess.rejectedSpans).toBe('2');
  });

  it('refuses bodies it cannot read with a problem, and stores nothing', async () => {
    const before = await storedOf(acme.orgId);
    const cases: Array<[string | Buffer, Record<string, string>, number, string, string]> = [
      [
        '{"resourceSpans":',
        { 'content-type': 'application/json' },
        400,
        'otlp-payload-invalid',
        'The body is not valid JSON',
      ],
      [
        '[1]',
        { 'content-type': 'application/json' },
        400,
        'otlp-payload-invalid',
        'The body is not an OTLP ExportTraceServiceRequest object',
      ],
      [
        '{"resourceSpans":{}}',
        { 'content-type': 'application/json' },
        400,
        'otlp-payload-invalid',
        'request.resourceSpans: is not an array',
      ],
      [
        Buffer.from([0x0a, 0xff, 0x01]),
        { 'content-type': 'application/x-protobuf' },
        400,
        'otlp-payload-invalid',
        'The body is not a protobuf ExportTraceServiceRequest',
      ],
      [
        Buffer.from('not gzip'),
        { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' },
        400,
        'otlp-payload-invalid',
        'The body is not valid gzip',
      ],
      ['{}', { 'content-type': 'text/plain' }, 415, 'unsupported-media-type', ''],
      [
        '{}',
        { 'content-type': 'application/json', 'content-encoding': 'br' },
        415,
        'unsupported-content-encoding',
        'Content-Encoding br is not accepted; send the body uncompressed or as gzip',
      ],
    ];
    for (const [body, headers, status, slug, detail] of cases) {
      const res = await post(body, headers);
      expect(res.statusCode, `${slug}: ${res.body}`).toBe(status);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ type: `/problems/${slug}`, status });
      expect(res.json().detail).toContain(detail);
      if (status === 415 && slug === 'unsupported-content-encoding') {
        expect(res.headers['accept-encoding']).toBe('gzip, identity');
      }
    }
    expect(await storedOf(acme.orgId)).toHaveLength(before.length);
  });

  it('reads a status sent by its enum name, as proto3 JSON writes it', async () => {
    const body = jsonExport(['hana']);
    const span = body.resourceSpans[0]!.scopeSpans[0]!.spans[0]! as Record<string, unknown>;
    span.spanId = 'feedfacefeedface';
    span.status = { code: 'STATUS_CODE_ERROR', message: 'upstream 503' };
    const res = await post(JSON.stringify(body), { 'content-type': 'application/json' });
    expect(res.json()).toEqual({});
    const stored = await storedEvent(acme.orgId, `${'abc'.padStart(32, '0')}-feedfacefeedface`);
    expect(stored).toMatchObject({ userId: 'hana', error: 'upstream 503', inputTokens: 5 });
  });

  it('needs an API key, as every ingest route', async () => {
    const res = await h.ingest(null, {
      method: 'POST',
      url: TRACES,
      payload: JSON.stringify(jsonExport(['gina'])),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ type: '/problems/missing-credential' });
  });
});
