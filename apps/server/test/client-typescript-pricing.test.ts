/**
 * Each TypeScript integration (from source) against the real server on a port, with a fake
 * provider that reports tokens and no cost: `wrap` over an OpenAI and an Anthropic client, the
 * AI SDK middleware and the LangChain callback handler. The stored model call has the cost the
 * price table gives (cached and reasoning tokens at their own rates) and names its row.
 */
import { readFileSync } from 'node:fs';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { arbiterMiddleware } from '../../../clients/typescript/src/ai-sdk.ts';
import { Arbiter } from '../../../clients/typescript/src/index.ts';
import { ArbiterCallbackHandler } from '../../../clients/typescript/src/langchain.ts';
import { events } from '../src/db/schema.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { storedEvents } from './support/stored-events.ts';

interface Row {
  pattern: string;
  effective_from: string;
  input_per_million: number;
  output_per_million: number;
  cached_input_per_million: number | null;
  reasoning_per_million: number | null;
}
const ROWS = JSON.parse(
  readFileSync(new URL('../src/domain/model-prices/prices.json', import.meta.url), 'utf8'),
).rows as Row[];
const rowOf = (pattern: string) => ROWS.find((r) => r.pattern === pattern) as Row;

/** The oracle, written apart from the server's: each kind at its rate, parts out of totals. */
function cost(row: Row, i: number, c: number, o: number, r: number): number {
  return (
    ((i - c) * row.input_per_million +
      c * (row.cached_input_per_million ?? row.input_per_million) +
      (o - r) * row.output_per_million +
      r * (row.reasoning_per_million ?? row.output_per_million)) /
    1e6
  );
}

const EXPERIMENT = 'priced-integrations';
let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
let client: Arbiter;

beforeAll(async () => {
  h = await startHarness();
  acme = await h.org('ts-pricing');
  await h.experiment(acme.admin, { name: EXPERIMENT });
  const baseUrl = await h.app.listen({ host: '127.0.0.1', port: 0 });
  client = new Arbiter({
    apiKey: acme.secret,
    baseUrl,
    flushIntervalMs: 3_600_000,
    logger: { warn: () => {}, error: () => {} },
  });
  expect(await client.ready()).toBe(true);
}, 120_000);
afterAll(async () => {
  await client?.close();
  await h?.close();
});

async function storedCall(model: string) {
  await client.flush();
  const rows = await storedEvents(
    h,
    and(eq(events.orgId, acme.orgId), eq(events.type, 'model_call'), eq(events.model, model)),
  );
  expect(rows.length).toBe(1);
  return rows[0]!;
}

it('wrap over OpenAI: cached and reasoning details priced at their own rates', async () => {
  const openai = {
    chat: {
      completions: {
        create: async () => ({
          object: 'chat.completion',
          model: 'o3-2025-04-16',
          choices: [{ message: { role: 'assistant', content: 'hi' } }],
          usage: {
            prompt_tokens: 3000,
            completion_tokens: 800,
            prompt_tokens_details: { cached_tokens: 1200 },
            completion_tokens_details: { reasoning_tokens: 600 },
          },
        }),
      },
    },
  };
  const wrapped = client.wrap(openai, EXPERIMENT);
  await client.withUser('ann', () => wrapped.chat.completions.create());
  const row = await storedCall('o3-2025-04-16');
  expect(row).toMatchObject({ cachedInputTokens: 1200, reasoningTokens: 600 });
  expect(row.pricedBy).toBe('builtin:o3@2025-06-10');
  const o3 = ROWS.filter((r) => r.pattern === 'o3').sort((a, b) =>
    b.effective_from.localeCompare(a.effective_from),
  )[0] as Row;
  expect(Math.abs(row.costUsd! - cost(o3, 3000, 1200, 800, 600))).toBeLessThan(1e-12);
});

it('wrap over Anthropic: the cache read and written are added into the input', async () => {
  const anthropic = {
    messages: {
      create: async () => ({
        type: 'message',
        model: 'claude-sonnet-4-20250514',
        content: [{ type: 'text', text: 'hi' }],
        usage: {
          input_tokens: 100,
          cache_read_input_tokens: 900,
          cache_creation_input_tokens: 50,
          output_tokens: 40,
        },
      }),
    },
  };
  const wrapped = client.wrap(anthropic, EXPERIMENT);
  await client.withUser('ben', () => wrapped.messages.create());
  const row = await storedCall('claude-sonnet-4-20250514');
  expect(row).toMatchObject({ inputTokens: 1050, cachedInputTokens: 900, outputTokens: 40 });
  expect(row.pricedBy).toBe('builtin:claude-sonnet-4@2025-05-22');
  expect(Math.abs(row.costUsd! - cost(rowOf('claude-sonnet-4'), 1050, 900, 40, 0))).toBeLessThan(
    1e-12,
  );
});

it('the AI SDK middleware: cacheRead and reasoning of the usage', async () => {
  const middleware = arbiterMiddleware({ client, experiment: EXPERIMENT, user: 'cat' });
  await middleware.wrapGenerate({
    params: { prompt: [] },
    model: { modelId: 'gemini-2.5-flash-preview-04-17' },
    doGenerate: async () => ({
      content: [{ type: 'text', text: 'hi' }],
      response: { modelId: 'gemini-2.5-flash-preview-04-17' },
      usage: {
        inputTokens: { total: 5000, cacheRead: 2000 },
        outputTokens: { total: 1500, reasoning: 1000 },
      },
    }),
  });
  const row = await storedCall('gemini-2.5-flash-preview-04-17');
  expect(row.pricedBy).toBe('builtin:gemini-2.5-flash-preview-04-17@2025-04-17');
  const preview = rowOf('gemini-2.5-flash-preview-04-17');
  expect(Math.abs(row.costUsd! - cost(preview, 5000, 2000, 1500, 1000))).toBeLessThan(1e-12);
});

it('the LangChain handler: usage_metadata with its token details', async () => {
  const handler = new ArbiterCallbackHandler({ client, experiment: EXPERIMENT, user: 'dan' });
  handler.handleChatModelStart({}, [[]], 'run-1');
  handler.handleLLMEnd(
    {
      generations: [
        [
          {
            text: 'hi',
            message: {
              content: 'hi',
              response_metadata: { model_name: 'gpt-4.1-mini-2025-04-14' },
              usage_metadata: {
                input_tokens: 4000,
                output_tokens: 300,
                input_token_details: { cache_read: 3000 },
                output_token_details: { reasoning: 0 },
              },
            },
          },
        ],
      ],
    },
    'run-1',
  );
  const row = await storedCall('gpt-4.1-mini-2025-04-14');
  expect(row).toMatchObject({ cachedInputTokens: 3000, reasoningTokens: 0 });
  expect(row.pricedBy).toBe('builtin:gpt-4.1-mini@2025-04-14');
  expect(Math.abs(row.costUsd! - cost(rowOf('gpt-4.1-mini'), 4000, 3000, 300, 0))).toBeLessThan(
    1e-12,
  );
});
