import { Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { eq } from 'drizzle-orm';
import protobuf from 'protobufjs/light.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events } from '../../../src/db/schema.ts';
import {
  OTLP_EXPORTS_PER_ORG,
  OTLP_MAX_ATTRIBUTES,
  OTLP_MAX_INFLATED_BYTES,
  OTLP_MAX_SPANS,
  OTLP_MAX_VALUE_DEPTH,
} from '../../../src/ingest/otlp/limits.ts';
import { OTLP_TRACE_DESCRIPTOR } from '../../../src/ingest/otlp/trace-descriptor.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import { field } from '../../support/protobuf-bytes.ts';
import { storedEvents } from '../../support/stored-events.ts';

/**
 * Hostile OTLP exports: each limit is refused with a problem that names it, nothing of the
 * export is stored, and the server answers the next request.
 */

const TRACES = '/v1/otlp/v1/traces';
const root = protobuf.Root.fromJSON(OTLP_TRACE_DESCRIPTOR);
const Request = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');

let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
const logLines: string[] = [];

beforeAll(async () => {
  const logDestination = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  h = await startHarness({ ARBITER_ENFORCE_LIMITS: 'false' }, { logDestination });
  acme = await h.org('otlp-limits');
  await h.experiment(acme.admin, { name: 'otlp-limits-exp' });
});
afterAll(() => h.close());

const post = (body: string | Buffer, headers: Record<string, string>, key = acme.publishable) =>
  h.ingest(key, { method: 'POST', url: TRACES, payload: body, headers });
const JSON_TYPE = { 'content-type': 'application/json' };
const PROTOBUF_TYPE = { 'content-type': 'application/x-protobuf' };

/** An ExportTraceServiceRequest around the bytes of one ScopeSpans' spans (its field 2). */
function request(spans: Buffer): Buffer {
  return field(1, field(2, spans));
}

/** An export of `count` empty spans in one ResourceSpans and ScopeSpans: two bytes a span. */
function emptySpans(count: number): Buffer {
  return request(Buffer.alloc(2 * count, Uint8Array.of(0x12, 0x00)));
}

/** A span whose one attribute's value nests kvlistValue `depth` deep in all, as protobuf. */
function nestedProtobuf(depth: number): Buffer {
  // AnyValue: string_value 1, kvlist_value 6; KeyValueList: values 1; KeyValue: key 1, value 2.
  let value = field(1, Buffer.from('x'));
  for (let i = 1; i < depth; i++) {
    value = field(6, field(1, Buffer.concat([field(1, Buffer.from('k')), field(2, value)])));
  }
  // Span: attributes 9.
  return request(
    field(2, field(9, Buffer.concat([field(1, Buffer.from('deep')), field(2, value)]))),
  );
}

const attribute = (key: string, value: unknown) => ({ key, value });
const text = (value: string) => ({ stringValue: value });

/** An OTLP JSON export of one chat span with the given extra attributes and start time. */
function chatExport(extra: unknown[], startNs = BigInt(Date.now() - 1000) * 1_000_000n) {
  return {
    resourceSpans: [
      {
        scopeSpans: [
          {
            spans: [
              {
                traceId: 'abc'.padStart(32, '0'),
                spanId: (extra.length + 1).toString(16).padStart(16, '0'),
                startTimeUnixNano: String(startNs),
                endTimeUnixNano: String(startNs + 1_000_000n),
                attributes: [
                  attribute('gen_ai.operation.name', text('chat')),
                  attribute('arbiter.experiment', text('otlp-limits-exp')),
                  attribute('arbiter.user_id', text('user-1')),
                  ...extra,
                ],
              },
            ],
          },
        ],
      },
    ],
  };
}

/** An AnyValue nesting kvlistValue `depth` deep in all (a scalar is depth 1), as JSON text. */
function nestedJson(depth: number): string {
  const open = '{"kvlistValue":{"values":[{"key":"k","value":';
  return `${open.repeat(depth - 1)}{"stringValue":"x"}${'}]}}'.repeat(depth - 1)}`;
}

function withNested(depth: number): string {
  const body = JSON.stringify(chatExport([attribute('deep', { PLACEHOLDER: true })]));
  return body.replace('{"PLACEHOLDER":true}', nestedJson(depth));
}

async function storedCount(): Promise<number> {
  await h.ctx.worker.foldAll();
  return (await storedEvents(h, eq(events.orgId, acme.orgId))).length;
}

function expectProblem(
  res: Awaited<ReturnType<typeof post>>,
  status: number,
  slug: string,
  detail: string,
) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.json()).toMatchObject({ type: `/problems/${slug}`, status });
  expect(res.json().detail).toContain(detail);
}

describe('OTLP export limits', () => {
  it('answers a 32 KB gzip bomb of 16.8 million empty spans with 413, and the next request', async () => {
    const spans = Math.floor((OTLP_MAX_INFLATED_BYTES - 16) / 2);
    const bomb = gzipSync(emptySpans(spans), { level: 9 });
    expect(bomb.length).toBeLessThan(40 * 1024);
    const res = await post(bomb, { ...PROTOBUF_TYPE, 'content-encoding': 'gzip' });
    expectProblem(res, 413, 'payload-too-large', `more than ${OTLP_MAX_SPANS} spans`);
    expect(res.json().limit).toBe(OTLP_MAX_SPANS);
    const next = await post(JSON.stringify(chatExport([])), JSON_TYPE);
    expect(next.statusCode).toBe(202);
  }, 120_000);

  it('refuses a gzip body that unpacks past its limit with 413', async () => {
    const bomb = gzipSync(Buffer.alloc(OTLP_MAX_INFLATED_BYTES + 1));
    const res = await post(bomb, { ...PROTOBUF_TYPE, 'content-encoding': 'gzip' });
    expectProblem(res, 413, 'payload-too-large', 'expands to more than 32 MiB');
    expect(res.json().limit).toBe(OTLP_MAX_INFLATED_BYTES);
  });

  it('takes the most spans allowed and refuses one more, with nothing stored', async () => {
    expect((await post(emptySpans(OTLP_MAX_SPANS), PROTOBUF_TYPE)).statusCode).toBe(202);
    const before = await storedCount();
    // A GenAI span first: it is refused with the rest, never stored.
    const [genAi] = chatExport([]).resourceSpans[0]!.scopeSpans[0]!.spans;
    const span = {
      ...genAi,
      traceId: Buffer.from(genAi!.traceId, 'hex'),
      spanId: Buffer.from(genAi!.spanId, 'hex'),
    };
    const body = Request.encode(
      Request.fromObject({ resourceSpans: [{ scopeSpans: [{ spans: [span] }] }] }),
    ).finish();
    const res = await post(Buffer.concat([body, emptySpans(OTLP_MAX_SPANS)]), PROTOBUF_TYPE);
    expectProblem(res, 413, 'payload-too-large', `more than ${OTLP_MAX_SPANS} spans`);
    const json = `{"resourceSpans":[{"scopeSpans":[{"spans":[${'{},'.repeat(OTLP_MAX_SPANS)}{}]}]}]}`;
    expectProblem(await post(json, JSON_TYPE), 413, 'payload-too-large', `${OTLP_MAX_SPANS}`);
    expect(await storedCount()).toBe(before);
  }, 120_000);

  it('counts the spans of a JSON export before it parses any: one over the limit is a 413 however its first span reads', async () => {
    // The first span is not JSON: were spans parsed before they are all counted, this would be
    // a 400 about that span.
    const json = `{"resourceSpans":[{"scopeSpans":[{"spans":[{"name": nope},${'{},'.repeat(OTLP_MAX_SPANS - 1)}{}]}]}]}`;
    const res = await post(json, JSON_TYPE);
    expectProblem(res, 413, 'payload-too-large', `more than ${OTLP_MAX_SPANS} spans`);
    expect(res.json().limit).toBe(OTLP_MAX_SPANS);
    // At the limit, the same first span is what the export is refused for.
    const atLimit = `{"resourceSpans":[{"scopeSpans":[{"spans":[{"name": nope},${'{},'.repeat(OTLP_MAX_SPANS - 2)}{}]}]}]}`;
    expectProblem(await post(atLimit, JSON_TYPE), 400, 'otlp-payload-invalid', 'not valid JSON');
  }, 120_000);

  it('takes the most attributes allowed in a list and refuses one more', async () => {
    const many = (n: number) =>
      Array.from({ length: n - 3 }, (_, i) => attribute(`extra.${i}`, text('v')));
    const ok = await post(JSON.stringify(chatExport(many(OTLP_MAX_ATTRIBUTES))), JSON_TYPE);
    expect([ok.statusCode, ok.json()]).toEqual([202, {}]);
    const res = await post(JSON.stringify(chatExport(many(OTLP_MAX_ATTRIBUTES + 1))), JSON_TYPE);
    expectProblem(res, 413, 'payload-too-large', `more than ${OTLP_MAX_ATTRIBUTES}`);
    expect(res.json().limit).toBe(OTLP_MAX_ATTRIBUTES);
  });

  it('takes values nested as deep as allowed and refuses deeper ones with 400, in both encodings', async () => {
    const ok = await post(withNested(OTLP_MAX_VALUE_DEPTH), JSON_TYPE);
    expect([ok.statusCode, ok.json()]).toEqual([202, {}]);
    const deeper = await post(withNested(OTLP_MAX_VALUE_DEPTH + 1), JSON_TYPE);
    expectProblem(deeper, 400, 'otlp-payload-invalid', `more than ${OTLP_MAX_VALUE_DEPTH} deep`);
    // Deep enough to overflow the stack of a recursive reader.
    const abyss = await post(withNested(100_000), JSON_TYPE);
    expectProblem(abyss, 400, 'otlp-payload-invalid', `more than ${OTLP_MAX_VALUE_DEPTH} deep`);
    const pb = await post(nestedProtobuf(OTLP_MAX_VALUE_DEPTH + 1), PROTOBUF_TYPE);
    expectProblem(pb, 400, 'otlp-payload-invalid', `more than ${OTLP_MAX_VALUE_DEPTH} deep`);
    const pbAbyss = await post(nestedProtobuf(1000), PROTOBUF_TYPE);
    expectProblem(pbAbyss, 400, 'otlp-payload-invalid', `${OTLP_MAX_VALUE_DEPTH} levels allowed`);
  });

  it('refuses a start time beyond a fixed64 of nanoseconds with 400', async () => {
    const before = await storedCount();
    const huge = 10n ** 30n;
    const res = await post(JSON.stringify(chatExport([], huge)), JSON_TYPE);
    expectProblem(res, 400, 'otlp-payload-invalid', 'startTimeUnixNano');
    expect(await storedCount()).toBe(before);
  });
});

describe('OTLP exports at once per org', () => {
  it('refuses exports past the per-org limit with 429 and Retry-After, and logs each refusal', async () => {
    // Large enough that every export is still being decoded when the last one arrives.
    const body = emptySpans(OTLP_MAX_SPANS);
    const sent = OTLP_EXPORTS_PER_ORG * 2;
    const answers = await Promise.all(
      Array.from({ length: sent }, () => post(body, PROTOBUF_TYPE, acme.secret)),
    );
    const statuses = answers.map((a) => a.statusCode);
    const refused = answers.filter((a) => a.statusCode === 429);
    expect(statuses.filter((s) => s === 202).length).toBeGreaterThanOrEqual(OTLP_EXPORTS_PER_ORG);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 202 || s === 429)).toBe(true);
    expect(refused[0]!.headers['retry-after']).toBe('2');
    expect(refused[0]!.json()).toEqual({
      type: '/problems/otlp-concurrency-limit',
      title: 'Too many OTLP exports at once',
      status: 429,
      detail: `Your org already has ${OTLP_EXPORTS_PER_ORG} OTLP exports being decoded at once, the most allowed; send this one again after 2 seconds`,
      instance: expect.any(String),
      limit: OTLP_EXPORTS_PER_ORG,
    });
    const warned = logLines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.msg === 'OTLP export refused');
    const busy = warned.filter((entry) => entry.refusal === 'otlp-concurrency-limit');
    expect(busy).toHaveLength(refused.length);
    expect(busy[0]).toMatchObject({
      level: 40,
      org_id: acme.orgId,
      key_prefix: acme.secret.slice(0, 11),
    });
    // Every limit refused above was logged the same way, never with the whole key.
    expect(
      warned.filter((entry) => entry.refusal === 'otlp-too-large').length,
    ).toBeGreaterThanOrEqual(4);
    expect(logLines.join('\n')).not.toContain(acme.publishable);
    expect(logLines.join('\n')).not.toContain(acme.secret);
  }, 120_000);
});
