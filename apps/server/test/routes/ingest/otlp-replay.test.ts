import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { eq } from 'drizzle-orm';
import protobuf from 'protobufjs/light.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events, experiments } from '../../../src/db/schema.ts';
import { OTLP_TRACE_DESCRIPTOR } from '../../../src/ingest/otlp/trace-descriptor.ts';
import { RECORDED_AT_MS } from '../../fixtures/otlp/genai-export.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import { storedEvents } from '../../support/stored-events.ts';

// No OpenTelemetry Collector is installed here: the protobuf body the SDK's exporter sent
// (test/fixtures/otlp/record-genai-export.ts) is what a Collector's otlphttp exporter forwards.
const recorded = readFileSync(new URL('../../fixtures/otlp/genai-export.binpb', import.meta.url));
const Response = protobuf.Root.fromJSON(OTLP_TRACE_DESCRIPTOR).lookupType(
  'opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse',
);

let h: Harness;
let key: string;
let orgId: string;
let experimentId: string;

beforeAll(async () => {
  // The recorded spans are from a fixed day: the server's clock stands a minute after them.
  h = await startHarness({}, { clock: { now: () => new Date(RECORDED_AT_MS + 60_000) } });
  const org = await h.org('otlp-replay');
  experimentId = await h.experiment(org.admin, { name: 'replayed-exp' });
  // ...and the experiment was made the day before them, so they fall in its analysis window.
  await h.ctx.db
    .update(experiments)
    .set({ createdAt: new Date(RECORDED_AT_MS - 24 * 3600_000) })
    .where(eq(experiments.id, experimentId));
  h.ctx.orgState.invalidate(org.orgId);
  key = org.secret;
  orgId = org.orgId;
});
afterAll(() => h.close());

const replay = (body: Buffer, headers: Record<string, string> = {}) =>
  h.ingest(key, {
    method: 'POST',
    url: '/v1/otlp/v1/traces',
    payload: body,
    headers: { 'content-type': 'application/x-protobuf', ...headers },
  });
const stored = () => storedEvents(h, eq(events.orgId, orgId));

describe('a recorded protobuf export, replayed as a Collector would send it', () => {
  it('stores the model calls the spans describe and rejects the one without a user', async () => {
    const res = await replay(recorded);
    expect(res.statusCode).toBe(202);
    const answer = Response.toObject(Response.decode(res.rawPayload), { longs: Number });
    expect(answer.partialSuccess.rejectedSpans).toBe(1);
    expect(answer.partialSuccess.errorMessage).toMatch(
      /^1 GenAI span rejected; span [0-9a-f]{16}: arbiter\.user_id is missing;/,
    );

    const rows = await stored();
    const calls = rows
      .filter((r) => r.type === 'model_call')
      .sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime());
    for (const call of calls) expect(call.eventId).toMatch(/^[0-9a-f]{32}-[0-9a-f]{16}$/);
    const at = (ms: number) => new Date(RECORDED_AT_MS + ms);
    expect(calls).toMatchObject([
      {
        experimentId,
        userId: 'user-1',
        occurredAt: at(0),
        latencyMs: 640,
        inputTokens: 31,
        outputTokens: 12,
        model: 'gpt-4o-2024-08-06',
        error: null,
        prompt: 'user: Where is my order?',
        response: 'It ships today.',
      },
      {
        userId: 'user-1',
        occurredAt: at(2_000),
        latencyMs: 410,
        inputTokens: 40,
        outputTokens: 9,
        model: 'gpt-4o',
        error: null,
        prompt: null,
        response: null,
      },
      {
        userId: 'user-2',
        occurredAt: at(3_000),
        latencyMs: 30_000,
        inputTokens: null,
        model: 'gpt-3.5-turbo-instruct',
        error: 'APITimeoutError: Request timed out.',
      },
    ]);
    // One exposure per user, at the user's first call, in the variant of the user's calls.
    const exposures = rows.filter((r) => r.type === 'exposure');
    expect(exposures.map((e) => [e.userId, e.occurredAt.toISOString()]).sort()).toEqual([
      ['user-1', at(0).toISOString()],
      ['user-2', at(3_000).toISOString()],
    ]);
    for (const e of exposures) {
      expect(e.variant).toBe(calls.find((c) => c.userId === e.userId)?.variant);
    }
    expect(rows).toHaveLength(5);
  });

  it('stores nothing twice when the same export arrives again, gzipped or not', async () => {
    const before = await stored();
    expect((await replay(recorded)).statusCode).toBe(202);
    expect((await replay(gzipSync(recorded), { 'content-encoding': 'gzip' })).statusCode).toBe(202);
    expect(await stored()).toEqual(before);
  });
});
