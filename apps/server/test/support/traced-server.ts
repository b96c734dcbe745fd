import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { experimentConfig } from './harness.ts';
import { judgeMetric } from './judge-fixtures.ts';
import { type FakeJudgeServer, startFakeJudge } from './judge-server.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from './otlp-receiver.ts';
import { devEnv, runCli, startServer } from './process.ts';

/** OTLP's SpanKind values. */
const SERVER = 2;
const CLIENT = 3;
const DB_ATTRIBUTES = ['db.operation.name', 'db.system', 'db.system.name'];
/** Values the test sends that no exported attribute may carry. */
const USER_ID = 'traced-user-5c1e9a';
const OWNER = 'traces@example.com';
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const JUDGE_MODEL = 'judge-model-7';
/** The graded model call's prompt: sent to the judge, never exported. */
const PROMPT = 'traced prompt 93b1c4';
const EVENT_ID = 'traced-event-8d2f41';

/** The span's ancestors up to its root, nearest first (ids must link up within the trace). */
function ancestors(span: ReceivedSpan, spans: readonly ReceivedSpan[]): ReceivedSpan[] {
  const chain: ReceivedSpan[] = [];
  let parentId = span.parentSpanId;
  while (parentId !== '') {
    const parent = spans.find((s) => s.spanId === parentId && s.traceId === span.traceId);
    if (parent === undefined)
      throw new Error(`span ${span.name}: parent ${parentId} was not exported`);
    chain.push(parent);
    parentId = parent.parentSpanId;
  }
  return chain;
}

function descendants(root: ReceivedSpan, spans: readonly ReceivedSpan[]): ReceivedSpan[] {
  return spans.filter(
    (s) => s.traceId === root.traceId && ancestors(s, spans).some((a) => a.spanId === root.spanId),
  );
}

function only(spans: readonly ReceivedSpan[], name: string): ReceivedSpan {
  const found = spans.filter((s) => s.name === name);
  expect(found.map((s) => s.name)).toEqual([name]);
  return found[0] as ReceivedSpan;
}

/**
 * Two experiments (the second with a judge metric), a key, an assignment, an exposure and a
 * model call, then the nightly run of today (the experiments were created today), asked by the
 * platform owner. Returns the experiments' ids and what no exported attribute may carry.
 */
async function workload(url: string, env: Record<string, string>) {
  const token = runCli(['token', '--email', OWNER, '--org', 'traced'], env);
  expect(token.code).toBe(0);
  const auth = { authorization: `Bearer ${token.stdout}`, 'content-type': 'application/json' };
  const post = (path: string, body: unknown, headers: Record<string, string> = auth) =>
    fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  // Judge metrics need a paid plan: the platform owner pins one.
  const who = (await (await fetch(`${url}/v1/whoami`, { headers: auth })).json()) as {
    org_id: string;
  };
  const pinned = await fetch(`${url}/v1/admin/orgs/${who.org_id}/plan-override`, {
    method: 'PUT',
    headers: auth,
    body: JSON.stringify({ plan: 'pro' }),
  });
  expect(pinned.status).toBe(200);
  const experimentIds: string[] = [];
  for (const config of [
    experimentConfig({ name: 'traced-one' }),
    experimentConfig({ name: 'traced-two', metrics: [judgeMetric()] }),
  ]) {
    const created = await post('/v1/experiments', config);
    const body = (await created.json()) as { id: string };
    expect(created.status, JSON.stringify(body)).toBe(201);
    experimentIds.push(body.id);
  }
  // A caller's W3C trace context: this request's span continues the caller's trace.
  const traced = { ...auth, traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` };
  const { key } = (await (await post('/v1/keys', { scope: 'publishable' }, traced)).json()) as {
    key: string;
  };
  const keyed = { 'x-api-key': key, 'content-type': 'application/json' };
  const assignment = { experiment_id: 'traced-one', user_id: USER_ID };
  expect((await post('/v1/assign', assignment, keyed)).status).toBe(200);
  const timestamp = new Date().toISOString();
  const events = [
    { event_id: EVENT_ID, type: 'exposure', ...assignment, timestamp },
    {
      event_id: `${EVENT_ID}-call`,
      type: 'model_call',
      experiment_id: 'traced-two',
      user_id: USER_ID,
      variant: 'control',
      timestamp,
      latency_ms: 300,
      prompt: PROMPT,
      response: 'Answer quality=0.8',
    },
  ];
  expect((await post('/v1/events', { events }, keyed)).status).toBe(202);
  const run = await post('/v1/admin/pipeline/run', { day: timestamp.slice(0, 10) });
  expect(run.status).toBe(200);
  return { experimentIds, secrets: [token.stdout, key, USER_ID, EVENT_ID, PROMPT] };
}

/**
 * A server process started with OTEL_EXPORTER_OTLP_ENDPOINT pointed at a local receiver, a
 * small workload (experiments, a key, an assignment, an event, the nightly run of today), then
 * SIGTERM; the spans it exported are checked. `database` gives the variables that pick the
 * database (none: the embedded one), `drop` ends it.
 */
export function describeTracedServer(
  title: string,
  database: () => Promise<{ env: Record<string, string>; drop(): Promise<void> }>,
  options: { postgresServer: boolean },
): void {
  describe(title, () => {
    let receiver: OtlpReceiver;
    let spans: ReceivedSpan[];
    let experimentIds: string[];
    let secrets: string[];
    let exitCode: number | null;
    let drop: () => Promise<void> = async () => {};
    let judge: FakeJudgeServer;

    beforeAll(async () => {
      receiver = await startOtlpReceiver();
      judge = await startFakeJudge();
      const db = await database();
      drop = db.drop;
      const env = {
        ...devEnv(mkdtempSync(join(tmpdir(), 'arbiter-traces-'))),
        ...db.env,
        ARBITER_PLATFORM_OWNER_EMAILS: OWNER,
        ARBITER_JUDGE_BASE_URL: judge.baseUrl,
        ARBITER_JUDGE_MODEL: JUDGE_MODEL,
        ARBITER_ENFORCE_LIMITS: 'false',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
        OTEL_SERVICE_NAME: '',
        // Nothing is exported on a timer during the test: every span arrives with the flush of
        // the graceful shutdown, which this also tests.
        OTEL_BSP_SCHEDULE_DELAY: '600000',
        ARBITER_SHUTDOWN_DELAY_SECONDS: '0',
      };
      const server = await startServer(env);
      try {
        ({ experimentIds, secrets } = await workload(server.url, env));
      } finally {
        server.child.kill('SIGTERM');
        exitCode = await server.exited;
      }
      spans = receiver.spans;
    }, 120_000);

    afterAll(async () => {
      await receiver?.close();
      await judge?.close();
      await drop();
    });

    it('flushes every span at the graceful shutdown, under the default service name', () => {
      expect(exitCode).toBe(0);
      expect(spans.length).toBeGreaterThan(0);
      expect(new Set(spans.map((s) => s.serviceName))).toEqual(new Set(['arbiter']));
    });

    it('gives a request a server span with the HTTP conventions, its statements as child spans', () => {
      const request = only(spans, 'POST /v1/assign');
      expect(request.kind).toBe(SERVER);
      expect(request.parentSpanId).toBe('');
      expect(request.attributes).toMatchObject({
        'http.request.method': 'POST',
        'http.route': '/v1/assign',
        'http.response.status_code': 200,
        'url.path': '/v1/assign',
      });
      const creations = spans.filter((s) => s.name === 'POST /v1/experiments');
      expect(creations).toHaveLength(2);
      const creation = creations[0] as ReceivedSpan;
      expect(creation.attributes).toMatchObject({ 'http.response.status_code': 201 });
      const statements = descendants(creation, spans).filter((s) => s.attributes['db.system']);
      expect(statements.length).toBeGreaterThan(0);
      const kinds = statements.map((s) => s.attributes['db.operation.name']);
      expect(kinds).toContain('INSERT');
      // A server's transaction is statements on one pooled connection; PGlite's are internal.
      if (options.postgresServer)
        expect(kinds).toEqual(expect.arrayContaining(['BEGIN', 'COMMIT']));
      else expect(kinds).not.toContain('BEGIN');
      // Events arrive on a server by COPY, a streamed statement: a span until the stream ends.
      const events = only(spans, 'POST /v1/events');
      const written = descendants(events, spans).map((s) => s.attributes['db.operation.name']);
      if (options.postgresServer) expect(written).toContain('COPY');
      else expect(written).not.toContain('COPY');
      for (const statement of statements) {
        expect(statement.kind).toBe(CLIENT);
        expect(Object.keys(statement.attributes).sort()).toEqual(DB_ATTRIBUTES);
        expect(statement.attributes['db.system']).toBe('postgresql');
        expect(statement.attributes['db.system.name']).toBe('postgresql');
        expect(statement.name).toBe(statement.attributes['db.operation.name']);
        expect(statement.name).toMatch(/^[A-Z]+$/);
      }
    });

    it("continues a caller's trace from its traceparent header", () => {
      const request = only(spans, 'POST /v1/keys');
      expect(request.traceId).toBe(CALLER_TRACE);
      expect(request.parentSpanId).toBe(CALLER_SPAN);
    });

    it('links every span to an exported parent, and puts no statement outside a span', () => {
      const own = spans.filter((s) => s.traceId !== CALLER_TRACE);
      for (const span of own) ancestors(span, own);
      const roots = own.filter((s) => s.parentSpanId === '');
      expect(roots.filter((s) => s.attributes['db.system'])).toEqual([]);
    });

    it('never exports a parameter, a key, a token or an id the requests carried', () => {
      const text = receiver.bodies.join('\n');
      for (const secret of secrets) expect(text).not.toContain(secret);
    });

    it('traces the nightly run: the run span, then one analysis span per experiment', () => {
      const run = only(spans, 'arbiter.nightly_run');
      const request = ancestors(run, spans).at(-1);
      expect(request?.name).toBe('POST /v1/admin/pipeline/run');
      expect(request?.kind).toBe(SERVER);
      expect(run.attributes).toMatchObject({
        'arbiter.run.ran': true,
        'arbiter.run.experiments': 2,
      });
      const analyses = spans.filter((s) => s.name === 'arbiter.analysis');
      expect(analyses.map((s) => s.parentSpanId)).toEqual([run.spanId, run.spanId]);
      expect(analyses.map((s) => s.attributes['arbiter.experiment.id']).sort()).toEqual(
        [...experimentIds].sort(),
      );
      for (const analysis of analyses) {
        expect(analysis.attributes).toMatchObject({
          'arbiter.run.kind': 'nightly',
          'arbiter.run.status': 'collecting',
        });
        const statements = descendants(analysis, spans).filter((s) => s.attributes['db.system']);
        expect(statements.length).toBeGreaterThan(0);
      }
    });

    it("traces the judge's call under the run, with the GenAI conventions' attributes", () => {
      expect(judge.requests).toHaveLength(1);
      const call = only(spans, `chat ${JUDGE_MODEL}`);
      expect(call.kind).toBe(CLIENT);
      expect(ancestors(call, spans).map((s) => s.name)).toContain('arbiter.nightly_run');
      expect(call.attributes).toEqual({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': JUDGE_MODEL,
        'gen_ai.response.model': JUDGE_MODEL,
        'gen_ai.response.id': expect.stringMatching(/^chatcmpl-/),
        'gen_ai.response.finish_reasons': ['stop'],
        'gen_ai.usage.input_tokens': 50,
        'gen_ai.usage.output_tokens': 8,
        'server.address': '127.0.0.1',
        'server.port': Number(new URL(judge.baseUrl).port),
      });
    });

    it('traces the fold stretch that folded the event, not the idle polls', () => {
      const folds = spans.filter((s) => s.name === 'arbiter.fold');
      expect(folds.length).toBeGreaterThan(0);
      const folded = folds.reduce((sum, s) => sum + Number(s.attributes['arbiter.fold.events']), 0);
      expect(folded).toBe(2);
    });
  });
}
