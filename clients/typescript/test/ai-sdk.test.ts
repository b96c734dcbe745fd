import { createOpenAI } from '@ai-sdk/openai';
import {
  APICallError,
  generateObject,
  generateText,
  jsonSchema,
  type LanguageModel,
  Output,
  stepCountIs,
  streamText,
  tool,
  wrapLanguageModel,
} from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { beforeAll, describe, expect, it } from 'vitest';
import { arbiterMiddleware } from '../src/ai-sdk.ts';
import { Arbiter } from '../src/index.ts';
import type { ArbiterEvent } from '../src/internal/wire.ts';
import {
  FAILING_MODEL,
  JSON_ANSWER,
  RESPONSE_DELAY_MS,
  STREAM_GAP_MS,
  USAGE,
} from './support/fake-llm.ts';
import { configOf, twoArms } from './support/fixtures.ts';
import { memoryLogger } from './support/logger.ts';
import { EXPERIMENT, EXPERIMENT_ID, useModelCallHarness } from './support/model-call-harness.ts';

/** The variants' prompts in the fixture config. */
const PROMPTS: Record<string, string> = {
  control: 'You are a helpful assistant.',
  concise: 'Answer in one sentence.',
};

let provider: ReturnType<typeof createOpenAI>;
const h = useModelCallHarness();
const { recorded } = h;

beforeAll(async () => {
  provider = createOpenAI({ apiKey: 'sk-test', baseURL: `${h.llm.url}/v1` });
});

/** The fake server's Chat Completions model, through the middleware. */
function model(options: { user?: string; useVariantPrompt?: boolean; id?: string } = {}) {
  const { id = 'gpt-test', ...rest } = options;
  return wrapLanguageModel({
    model: provider.chat(id),
    middleware: arbiterMiddleware({ client: h.arbiter, experiment: EXPERIMENT, ...rest }),
  });
}

async function modelCalls(): Promise<ArbiterEvent[]> {
  return (await recorded()).filter((e) => e.type === 'model_call');
}

/** Exactly one exposure (the user's variant) and one model_call for `user`; returns the call. */
async function oneCall(user: string): Promise<ArbiterEvent> {
  const events = await recorded();
  expect(events.map((e) => e.type).sort()).toEqual(['exposure', 'model_call']);
  const variant = h.arbiter.assign(EXPERIMENT, user);
  expect(variant).not.toBeNull();
  expect(events.find((e) => e.type === 'exposure')).toMatchObject({
    experiment_id: EXPERIMENT_ID,
    user_id: user,
    variant,
  });
  const call = events.find((e) => e.type === 'model_call') as ArbiterEvent;
  expect(call).toMatchObject({ experiment_id: EXPERIMENT_ID, user_id: user });
  return call;
}

describe('arbiterMiddleware: generateText', () => {
  it('records latency, tokens, model, prompt and response of the call', async () => {
    const result = await h.arbiter.withUser('g-1', () =>
      generateText({ model: model(), system: 'Be kind.', prompt: 'Hi' }),
    );
    expect(result.text).toBe('Hi there.');
    const call = await oneCall('g-1');
    expect(call).toMatchObject({
      model: 'gpt-test',
      input_tokens: USAGE.input,
      output_tokens: USAGE.output,
      error: null,
      prompt: 'system: Be kind.\nuser: Hi',
      response: 'Hi there.',
    });
    expect(call.latency_ms).toBeGreaterThanOrEqual(RESPONSE_DELAY_MS);
    expect(call).not.toHaveProperty('cost_usd');
    expect(call).not.toHaveProperty('metadata');
  });

  it('takes an explicit user over withUser', async () => {
    await h.arbiter.withUser('someone-else', () =>
      generateText({ model: model({ user: 'g-2' }), prompt: 'Hi' }),
    );
    expect((await oneCall('g-2')).response).toBe('Hi there.');
  });

  it('records a failed call and rethrows the provider error', async () => {
    await expect(
      h.arbiter.withUser('g-3', () =>
        generateText({ model: model({ id: FAILING_MODEL }), prompt: 'Hi', maxRetries: 0 }),
      ),
    ).rejects.toSatisfy((err) => APICallError.isInstance(err));
    const call = await oneCall('g-3');
    expect(call.model).toBe(FAILING_MODEL);
    expect(call.error).toMatch(/^APICallError: bad model/);
    expect(call.latency_ms).toBeGreaterThanOrEqual(RESPONSE_DELAY_MS);
    expect(call.prompt).toBe('user: Hi');
    expect(call).not.toHaveProperty('response');
  });

  it('passes calls with no user through, unrecorded', async () => {
    const result = await generateText({ model: model(), prompt: 'Hi' });
    expect(result.text).toBe('Hi there.');
    expect(await recorded()).toEqual([]);
  });

  it('sets the variant prompt as the system message when asked', async () => {
    const user = 'g-4';
    const variant = h.arbiter.assign(EXPERIMENT, user) as string;
    await h.arbiter.withUser(user, () =>
      generateText({ model: model({ useVariantPrompt: true }), system: 'Own.', prompt: 'Hi' }),
    );
    const [call] = await modelCalls();
    expect(call?.prompt).toBe(`system: ${PROMPTS[variant]}\nuser: Hi`);
  });

  it('keeps the call’s own system message when the user’s variant has no prompt', async () => {
    h.fake.setConfig(configOf(2, twoArms({ variants: [{ key: 'control' }, { key: 'concise' }] })));
    const local = new Arbiter({
      apiKey: h.fake.apiKey,
      baseUrl: h.fake.baseUrl,
      logger: memoryLogger(),
      flushIntervalMs: 3_600_000,
    });
    try {
      await local.ready();
      const m = wrapLanguageModel({
        model: provider.chat('gpt-test'),
        middleware: arbiterMiddleware({
          client: local,
          experiment: EXPERIMENT,
          useVariantPrompt: true,
        }),
      });
      await local.withUser('g-5', () => generateText({ model: m, system: 'Own.', prompt: 'Hi' }));
      await local.flush();
      const call = [...h.fake.events.values()].find((e) => e.type === 'model_call');
      expect(call?.prompt).toBe('system: Own.\nuser: Hi');
    } finally {
      await local.close();
      h.fake.setConfig(configOf(3, twoArms()));
    }
  });

  it('recordModelText: false leaves the prompt and response out', async () => {
    const quiet = new Arbiter({
      apiKey: h.fake.apiKey,
      baseUrl: h.fake.baseUrl,
      logger: memoryLogger(),
      flushIntervalMs: 3_600_000,
      recordModelText: false,
    });
    try {
      await quiet.ready();
      const m = wrapLanguageModel({
        model: provider.chat('gpt-test'),
        middleware: arbiterMiddleware({ client: quiet, experiment: EXPERIMENT, user: 'g-6' }),
      });
      await generateText({ model: m, prompt: 'Hi' });
      await quiet.flush();
      const call = [...h.fake.events.values()].find((e) => e.type === 'model_call');
      expect(call).toMatchObject({ model: 'gpt-test', output_tokens: USAGE.output });
      expect(call).not.toHaveProperty('prompt');
      expect(call).not.toHaveProperty('response');
    } finally {
      await quiet.close();
    }
  });

  it('refuses a client that is not an Arbiter', () => {
    expect(() =>
      arbiterMiddleware({
        client: { getPrompt: () => null as never, withUser: (_u, fn) => fn() },
        experiment: EXPERIMENT,
      }),
    ).toThrow(TypeError);
  });
});

describe('arbiterMiddleware: streamText', () => {
  it('records the call when the stream ends, with the time to first token', async () => {
    const release = h.llm.holdNextStream();
    let text = '';
    await h.arbiter.withUser('s-1', async () => {
      const result = streamText({ model: model(), prompt: 'Hi' });
      const reader = result.textStream[Symbol.asyncIterator]();
      const first = await reader.next();
      text += first.value ?? '';
      // The answer is held after its first event: the exposure is in, the model_call is not.
      expect((await recorded()).map((e) => e.type)).toEqual(['exposure']);
      release();
      for (let step = await reader.next(); !step.done; step = await reader.next()) {
        text += step.value;
      }
    });
    expect(text).toBe('Hi there.');
    const call = await oneCall('s-1');
    expect(call).toMatchObject({
      model: 'gpt-test',
      input_tokens: USAGE.input,
      output_tokens: USAGE.output,
      error: null,
      prompt: 'user: Hi',
      response: 'Hi there.',
    });
    const ttft = (call.metadata as { time_to_first_token_ms: number }).time_to_first_token_ms;
    expect(ttft).toBeGreaterThanOrEqual(RESPONSE_DELAY_MS + STREAM_GAP_MS);
    // The stream was held open past its first token: the call ended later.
    expect(call.latency_ms).toBeGreaterThan(ttft);
  });

  it('a streamed call inside withPrompt carries the prompt beside its time to first token', async () => {
    const prompt = { name: 'support-reply', version: 2 };
    await h.arbiter.withUser('s-p', () =>
      h.arbiter.withPrompt(prompt, async () => {
        const result = streamText({ model: model(), prompt: 'Hi' });
        for await (const _ of result.textStream) {
          // read to the end
        }
      }),
    );
    const call = await oneCall('s-p');
    expect(call.metadata).toEqual({
      time_to_first_token_ms: expect.any(Number),
      prompt_name: 'support-reply',
      prompt_version: 2,
    });
  });

  it('measures a stream read at its own pace: first token before the end', async () => {
    const result = h.arbiter.withUser('s-2', () => streamText({ model: model(), prompt: 'Hi' }));
    expect(await result.text).toBe('Hi there.');
    expect(await result.usage).toMatchObject({ inputTokens: USAGE.input });
    const call = await oneCall('s-2');
    const ttft = (call.metadata as { time_to_first_token_ms: number }).time_to_first_token_ms;
    expect(ttft).toBeGreaterThanOrEqual(RESPONSE_DELAY_MS);
    // Two more events follow the first text, each after a gap.
    expect(call.latency_ms).toBeGreaterThanOrEqual(ttft + STREAM_GAP_MS);
    expect(call.output_tokens).toBe(USAGE.output);
  });

  it('records a stream the caller abandons', async () => {
    await h.arbiter.withUser('s-3', async () => {
      const controller = new AbortController();
      const result = streamText({
        model: model(),
        prompt: 'Hi',
        abortSignal: controller.signal,
      });
      for await (const _ of result.textStream) {
        controller.abort();
      }
    });
    const call = await oneCall('s-3');
    expect(call.model).toBe('gpt-test');
    expect(call.response).toBe('Hi');
  });
});

describe('arbiterMiddleware: structured output and tools', () => {
  it('structured output (Output.object): the JSON answer is the response', async () => {
    const result = await h.arbiter.withUser('o-1', () =>
      generateText({
        model: model(),
        prompt: 'Greet me',
        output: Output.object({
          schema: jsonSchema<{ greeting: string }>({
            type: 'object',
            properties: { greeting: { type: 'string' } },
            required: ['greeting'],
            additionalProperties: false,
          }),
        }),
      }),
    );
    expect(result.output).toEqual({ greeting: 'Hi there.' });
    const call = await oneCall('o-1');
    expect(call).toMatchObject({
      response: JSON_ANSWER,
      input_tokens: USAGE.input,
      output_tokens: USAGE.output,
    });
  });

  it('generateObject: the JSON answer is the response', async () => {
    const result = await h.arbiter.withUser('o-2', () =>
      generateObject({
        model: model(),
        prompt: 'Greet me',
        schema: jsonSchema<{ greeting: string }>({
          type: 'object',
          properties: { greeting: { type: 'string' } },
          required: ['greeting'],
          additionalProperties: false,
        }),
      }),
    );
    expect(result.object).toEqual({ greeting: 'Hi there.' });
    const call = await oneCall('o-2');
    expect(call).toMatchObject({
      response: JSON_ANSWER,
      input_tokens: USAGE.input,
      output_tokens: USAGE.output,
    });
  });

  it('a tool loop records one model_call per step, the tool result in the second prompt', async () => {
    let toolRuns = 0;
    const result = await h.arbiter.withUser('t-1', () =>
      generateText({
        model: model(),
        prompt: 'Hi',
        tools: {
          lookup: tool({
            description: 'Looks the answer up',
            inputSchema: jsonSchema<Record<string, never>>({ type: 'object', properties: {} }),
            execute: async () => {
              toolRuns++;
              return 'found';
            },
          }),
        },
        stopWhen: stepCountIs(3),
      }),
    );
    expect(result.text).toBe('Hi there.');
    expect(toolRuns).toBe(1);
    const events = await recorded();
    expect(events.filter((e) => e.type === 'exposure').length).toBeGreaterThan(0);
    const calls = events.filter((e) => e.type === 'model_call');
    expect(calls).toHaveLength(2);
    for (const call of calls) {
      expect(call).toMatchObject({
        user_id: 't-1',
        model: 'gpt-test',
        error: null,
        input_tokens: USAGE.input,
        output_tokens: USAGE.output,
      });
    }
    // The first answer is the tool call (no text); the second sees the tool's result.
    expect(calls.map((c) => c.response ?? null).sort()).toEqual(['Hi there.', null]);
    expect(calls.some((c) => c.prompt?.includes('tool: found'))).toBe(true);
  });
});

describe('arbiterMiddleware: attribution and providers', () => {
  it('20 concurrent users under withUser are each attributed to themselves', async () => {
    const users = Array.from({ length: 20 }, (_, i) => `cc-${i}`);
    const m = model();
    await Promise.all(
      users.map((user, i) =>
        h.arbiter.withUser(user, async () => {
          if (i % 2 === 0) {
            await generateText({ model: m, prompt: `Hi from ${user}` });
          } else {
            const result = streamText({ model: m, prompt: `Hi from ${user}` });
            await result.text;
          }
        }),
      ),
    );
    const events = await recorded();
    const calls = events.filter((e) => e.type === 'model_call');
    expect(calls.map((e) => e.user_id).sort()).toEqual([...users].sort());
    for (const call of calls) {
      // Each call carries its own user's prompt: no call was attributed to another user.
      expect(call.prompt).toBe(`user: Hi from ${call.user_id}`);
      expect(call.response).toBe('Hi there.');
    }
    const exposures = events.filter((e) => e.type === 'exposure');
    expect(exposures).toHaveLength(users.length);
    for (const exposure of exposures) {
      expect(exposure.variant).toBe(h.arbiter.assign(EXPERIMENT, exposure.user_id));
    }
  });

  it('any provider: the cost a provider reports in its metadata is recorded', async () => {
    const mock = new MockLanguageModelV4({
      modelId: 'mock-model',
      doGenerate: async () => ({
        content: [{ type: 'text', text: 'Priced.' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: {
          inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 2, text: 2, reasoning: 0 },
        },
        providerMetadata: { gateway: { cost: '0.0012' } },
        response: { modelId: 'mock-model-2026' },
        warnings: [],
      }),
    });
    const m: LanguageModel = wrapLanguageModel({
      model: mock,
      middleware: arbiterMiddleware({ client: h.arbiter, experiment: EXPERIMENT, user: 'p-1' }),
    });
    expect((await generateText({ model: m, prompt: 'Price?' })).text).toBe('Priced.');
    expect(await oneCall('p-1')).toMatchObject({
      model: 'mock-model-2026',
      input_tokens: 3,
      output_tokens: 2,
      cost_usd: 0.0012,
      response: 'Priced.',
    });
  });
});
