import { readFileSync } from 'node:fs';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.ts';
import { events } from '../../../src/db/schema.ts';
import type { App } from '../../../src/http/app-types.ts';
import { exportSpans, makeSpans } from '../../support/genai-spans.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import { storedEvents } from '../../support/stored-events.ts';

/**
 * OTLP spans that report tokens and no cost, from the OpenTelemetry SDK's exporter: the stored
 * model call has the price table's cost, with cache reads and reasoning at their own rates.
 */
let h: Harness;
let app: App;
let origin: string;
let acme: Awaited<ReturnType<Harness['org']>>;

beforeAll(async () => {
  h = await startHarness();
  acme = await h.org('otlp-prices');
  await h.experiment(acme.admin, { name: 'otlp-priced' });
  app = await buildApp(h.ctx, { logger: false });
  origin = await app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await app.close();
  await h.close();
});

interface Rates {
  pattern: string;
  input_per_million: number;
  cached_input_per_million: number;
  output_per_million: number;
  reasoning_per_million: number;
}
const row = (
  JSON.parse(
    readFileSync(new URL('../../../src/domain/model-prices/prices.json', import.meta.url), 'utf8'),
  ).rows as Rates[]
).find((r) => r.pattern === 'gemini-2.5-flash-preview-04-17') as Rates;

const span = (user: string, usage: Record<string, number>) => ({
  attributes: {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': 'gcp.gemini',
    'gen_ai.request.model': 'gemini-2.5-flash-preview-04-17',
    'arbiter.user_id': user,
    ...usage,
  },
  startMs: Date.now() - 5_000,
  durationMs: 100,
});

it('prices a span’s cache reads and reasoning at their own rates', async () => {
  const spans = makeSpans({ 'arbiter.experiment': 'otlp-priced' }, [
    span('alice', {
      'gen_ai.usage.input_tokens': 10_000,
      'gen_ai.usage.cache_read.input_tokens': 4_000,
      'gen_ai.usage.output_tokens': 3_000,
      'gen_ai.usage.reasoning.output_tokens': 2_500,
    }),
    // Counted the cache apart, as Anthropic's usage does: the cache is added into the input.
    span('bob', {
      'gen_ai.usage.input_tokens': 100,
      'gen_ai.usage.cache_read.input_tokens': 900,
      'gen_ai.usage.output_tokens': 10,
    }),
  ]);
  const exporter = new OTLPTraceExporter({
    url: `${origin}/v1/otlp/v1/traces`,
    headers: { 'x-api-key': acme.publishable },
  });
  expect(await exportSpans(exporter, spans)).toEqual({ ok: true });
  const stored = async (s: ReadableSpan) => {
    const id = `${s.spanContext().traceId}-${s.spanContext().spanId}`;
    const [found] = await storedEvents(
      h,
      and(eq(events.orgId, acme.orgId), eq(events.eventId, id)),
    );
    return found!;
  };
  const alice = await stored(spans[0] as ReadableSpan);
  const expected =
    (6_000 * row.input_per_million +
      4_000 * row.cached_input_per_million +
      500 * row.output_per_million +
      2_500 * row.reasoning_per_million) /
    1e6;
  expect(alice).toMatchObject({
    inputTokens: 10_000,
    cachedInputTokens: 4_000,
    outputTokens: 3_000,
    reasoningTokens: 2_500,
    pricedBy: 'builtin:gemini-2.5-flash-preview-04-17@2025-04-17',
  });
  expect(Math.abs(alice.costUsd! - expected)).toBeLessThan(1e-12);
  const bob = await stored(spans[1] as ReadableSpan);
  expect(bob).toMatchObject({ inputTokens: 1_000, cachedInputTokens: 900, outputTokens: 10 });
  const bobCost =
    (100 * row.input_per_million +
      900 * row.cached_input_per_million +
      10 * row.output_per_million) /
    1e6;
  expect(Math.abs(bob.costUsd! - bobCost)).toBeLessThan(1e-12);
});
