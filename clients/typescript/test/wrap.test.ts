import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { Arbiter } from '../src/index.ts';
import { FAILING_MODEL, RESPONSE_DELAY_MS, STREAM_GAP_MS, USAGE } from './support/fake-llm.ts';
import { configOf, twoArms } from './support/fixtures.ts';
import { memoryLogger } from './support/logger.ts';
import { EXPERIMENT, EXPERIMENT_ID, useModelCallHarness } from './support/model-call-harness.ts';

const h = useModelCallHarness();
const { recorded } = h;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  openai = new OpenAI({ apiKey: 'sk-test', baseURL: `${h.llm.url}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: 'sk-ant-test', baseURL: h.llm.url, maxRetries: 0 });
});

/** One exposure and one model_call for `user`, the model_call measured as expected. */
async function expectOneCall(
  user: string,
  expected: {
    model: string;
    input?: number;
    output?: number;
    error?: RegExp;
    minLatency: number;
    prompt?: string;
    response?: string;
  },
): Promise<void> {
  const events = await recorded();
  expect(events.map((e) => e.type).sort()).toEqual(['exposure', 'model_call']);
  const variant = h.arbiter.assign(EXPERIMENT, user);
  expect(variant).not.toBeNull();
  expect(events.find((e) => e.type === 'exposure')).toMatchObject({
    experiment_id: EXPERIMENT_ID,
    user_id: user,
    variant,
  });
  const call = events.find((e) => e.type === 'model_call');
  expect(call).toMatchObject({
    experiment_id: EXPERIMENT_ID,
    user_id: user,
    model: expected.model,
  });
  expect(call?.input_tokens).toBe(expected.input);
  expect(call?.output_tokens).toBe(expected.output);
  if (expected.error === undefined) expect(call?.error).toBeNull();
  else expect(call?.error).toMatch(expected.error);
  expect(call?.latency_ms).toBeGreaterThanOrEqual(expected.minLatency);
  expect(call?.prompt).toBe(expected.prompt);
  expect(call?.response).toBe(expected.response);
}

/** The fake model's full answer to 'Hi', as one model_call records it. */
const answered = (model: string, minLatency: number) => ({
  model,
  input: USAGE.input,
  output: USAGE.output,
  minLatency,
  prompt: 'user: Hi',
  response: 'Hi there.',
});

const chatParams = { model: 'gpt-test', messages: [{ role: 'user' as const, content: 'Hi' }] };
const streamFloor = RESPONSE_DELAY_MS + 3 * STREAM_GAP_MS;

describe('wrap(openai)', () => {
  it('chat.completions.create: records latency, tokens and model', async () => {
    const client = h.arbiter.wrap(openai, EXPERIMENT);
    const completion = await h.arbiter.withUser('user-1', () =>
      client.chat.completions.create(chatParams),
    );
    expect(completion.choices[0]?.message.content).toBe('Hi there.');
    await expectOneCall('user-1', answered('gpt-test', RESPONSE_DELAY_MS));
  });

  it('chat.completions.create with stream: measured to the end of the stream', async () => {
    const client = h.arbiter.wrap(openai, EXPERIMENT);
    let text = '';
    await h.arbiter.withUser('user-2', async () => {
      const stream = await client.chat.completions.create({
        ...chatParams,
        stream: true,
        stream_options: { include_usage: true },
      });
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    });
    expect(text).toBe('Hi there.');
    await expectOneCall('user-2', answered('gpt-test', streamFloor));
  });

  it('a stream without usage still records model and latency', async () => {
    const client = h.arbiter.wrap(openai, EXPERIMENT);
    await h.arbiter.withUser('user-3', async () => {
      const stream = await client.chat.completions.create({ ...chatParams, stream: true });
      for await (const _ of stream) {
      }
    });
    await expectOneCall('user-3', {
      model: 'gpt-test',
      minLatency: streamFloor,
      prompt: 'user: Hi',
      response: 'Hi there.',
    });
  });

  it('responses.create, plain and streamed', async () => {
    const client = h.arbiter.wrap(openai, EXPERIMENT);
    const response = await h.arbiter.withUser('user-4', () =>
      client.responses.create({ model: 'gpt-resp', input: 'Hi' }),
    );
    expect(response.output_text).toBe('Hi there.');
    await expectOneCall('user-4', answered('gpt-resp', RESPONSE_DELAY_MS));
    h.fake.events.clear();
    await h.arbiter.withUser('user-5', async () => {
      const stream = await client.responses.create({
        model: 'gpt-resp',
        input: 'Hi',
        stream: true,
      });
      const types: string[] = [];
      for await (const event of stream) types.push(event.type);
      expect(types).toContain('response.completed');
    });
    await expectOneCall('user-5', answered('gpt-resp', RESPONSE_DELAY_MS + 2 * STREAM_GAP_MS));
  });

  it('the chat.completions.stream() helper goes through the wrapped create', async () => {
    const client = h.arbiter.wrap(openai, EXPERIMENT);
    const final = await h.arbiter.withUser('user-h1', () =>
      client.chat.completions
        .stream({ ...chatParams, stream_options: { include_usage: true } })
        .finalChatCompletion(),
    );
    expect(final.choices[0]?.message.content).toBe('Hi there.');
    await expectOneCall('user-h1', answered('gpt-test', streamFloor));
  });

  it('chat.completions.parse(), responses.parse() and responses.stream() are recorded too', async () => {
    const client = h.arbiter.wrap(openai, EXPERIMENT);
    const parsed = await h.arbiter.withUser('user-h2', () =>
      client.chat.completions.parse(chatParams),
    );
    expect(parsed.choices[0]?.message.content).toBe('Hi there.');
    await expectOneCall('user-h2', answered('gpt-test', RESPONSE_DELAY_MS));
    h.fake.events.clear();
    const parsedResponse = await h.arbiter.withUser('user-h5', () =>
      client.responses.parse({ model: 'gpt-resp', input: 'Hi' }),
    );
    expect(parsedResponse.output_text).toBe('Hi there.');
    await expectOneCall('user-h5', answered('gpt-resp', RESPONSE_DELAY_MS));
    h.fake.events.clear();
    const final = await h.arbiter.withUser('user-h3', () =>
      client.responses.stream({ model: 'gpt-resp', input: 'Hi' }).finalResponse(),
    );
    expect(final.output_text).toBe('Hi there.');
    await expectOneCall('user-h3', answered('gpt-resp', RESPONSE_DELAY_MS + 2 * STREAM_GAP_MS));
  });

  it('runTools() records each completion it asks for, the tool round included', async () => {
    const client = h.arbiter.wrap(openai, EXPERIMENT);
    let toolRuns = 0;
    const runner = h.arbiter.withUser('user-h4', () =>
      client.chat.completions.runTools({
        ...chatParams,
        tools: [
          {
            type: 'function',
            function: {
              name: 'lookup',
              description: 'Looks the answer up',
              parameters: { type: 'object', properties: {} },
              function: () => {
                toolRuns++;
                return 'found';
              },
            },
          },
        ],
      }),
    );
    expect(await runner.finalContent()).toBe('Hi there.');
    expect(toolRuns).toBe(1);
    const events = await recorded();
    const calls = events.filter((e) => e.type === 'model_call');
    expect(calls).toHaveLength(2);
    for (const call of calls) {
      expect(call).toMatchObject({ user_id: 'user-h4', model: 'gpt-test', error: null });
      expect(call.latency_ms).toBeGreaterThanOrEqual(RESPONSE_DELAY_MS);
    }
    // The first answer is the tool call (no text); the second sees the tool's result.
    expect(calls.map((c) => c.response ?? null).sort()).toEqual(['Hi there.', null]);
    expect(calls.some((c) => c.prompt?.includes('tool: found'))).toBe(true);
  });

  it('records a failed call and rethrows the SDK error', async () => {
    const client = h.arbiter.wrap(openai, EXPERIMENT);
    await expect(
      h.arbiter.withUser('user-6', () =>
        client.chat.completions.create({ ...chatParams, model: FAILING_MODEL }),
      ),
    ).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expectOneCall('user-6', {
      model: FAILING_MODEL,
      error: /^BadRequestError: 400/,
      minLatency: RESPONSE_DELAY_MS,
      prompt: 'user: Hi',
    });
  });

  it('keeps the SDK promise: withResponse() still works', async () => {
    const client = h.arbiter.wrap(openai, EXPERIMENT);
    const { data, response } = await h.arbiter.withUser('user-7', () =>
      client.chat.completions.create(chatParams).withResponse(),
    );
    expect(response.status).toBe(200);
    expect(data.usage?.completion_tokens).toBe(USAGE.output);
    await expectOneCall('user-7', answered('gpt-test', RESPONSE_DELAY_MS));
  });

  it('records a stream the caller stops reading early', async () => {
    const client = h.arbiter.wrap(openai, EXPERIMENT);
    await h.arbiter.withUser('user-8', async () => {
      const stream = await client.chat.completions.create({ ...chatParams, stream: true });
      for await (const _ of stream) break;
    });
    // the text read before the caller stopped: the first chunk
    await expectOneCall('user-8', {
      model: 'gpt-test',
      minLatency: RESPONSE_DELAY_MS,
      prompt: 'user: Hi',
      response: 'Hi',
    });
  });

  it('passes calls outside withUser through, unrecorded', async () => {
    const client = h.arbiter.wrap(openai, EXPERIMENT);
    const completion = await client.chat.completions.create(chatParams);
    expect(completion.choices[0]?.message.content).toBe('Hi there.');
    expect(await recorded()).toEqual([]);
  });

  it('attributes concurrent calls to their own users', async () => {
    const client = h.arbiter.wrap(openai, EXPERIMENT);
    const users = ['c-1', 'c-2', 'c-3', 'c-4'];
    await Promise.all(
      users.map((u) =>
        h.arbiter.withUser(u, async () => {
          await new Promise((r) => setTimeout(r, 1));
          await client.chat.completions.create(chatParams);
        }),
      ),
    );
    const calls = (await recorded()).filter((e) => e.type === 'model_call');
    expect(calls.map((e) => e.user_id).sort()).toEqual(users);
  });

  it('leaves the original client and its other methods alone', async () => {
    const client = h.arbiter.wrap(openai, EXPERIMENT);
    expect(client.chat.completions).toBe(client.chat.completions);
    expect(client.baseURL).toBe(openai.baseURL);
    const models = await h.arbiter.withUser('user-9', () =>
      openai.chat.completions.create(chatParams),
    );
    expect(models.id).toBe('chatcmpl-1');
    expect(await recorded()).toEqual([]);
  });
});

describe('wrap(anthropic)', () => {
  const params = {
    model: 'claude-test',
    max_tokens: 20,
    messages: [{ role: 'user' as const, content: 'Hi' }],
  };

  it('messages.create: records latency, tokens and model', async () => {
    const client = h.arbiter.wrap(anthropic, EXPERIMENT);
    const message = await h.arbiter.withUser('a-1', () => client.messages.create(params));
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'Hi there.' });
    await expectOneCall('a-1', answered('claude-test', RESPONSE_DELAY_MS));
  });

  it('messages.create with stream: tokens from message_start and message_delta', async () => {
    const client = h.arbiter.wrap(anthropic, EXPERIMENT);
    let text = '';
    await h.arbiter.withUser('a-2', async () => {
      const stream = await client.messages.create({ ...params, stream: true });
      for await (const event of stream) {
        if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') {
          text += event.delta.text;
        }
      }
    });
    expect(text).toBe('Hi there.');
    await expectOneCall('a-2', answered('claude-test', RESPONSE_DELAY_MS + 6 * STREAM_GAP_MS));
  });

  it('the messages.stream() helper goes through the wrapped create', async () => {
    const client = h.arbiter.wrap(anthropic, EXPERIMENT);
    const final = await h.arbiter.withUser('a-3', () =>
      client.messages.stream(params).finalMessage(),
    );
    expect(final.usage.output_tokens).toBe(USAGE.output);
    await expectOneCall('a-3', answered('claude-test', RESPONSE_DELAY_MS));
  });

  it('renders a system prompt and a conversation as role lines, text parts only', async () => {
    const client = h.arbiter.wrap(anthropic, EXPERIMENT);
    await h.arbiter.withUser('a-5', () =>
      client.messages.create({
        ...params,
        system: 'Be brief.',
        messages: [
          { role: 'user', content: 'Where is my order?' },
          { role: 'assistant', content: [{ type: 'text', text: 'Which one?' }] },
          { role: 'user', content: [{ type: 'text', text: 'The blue one.' }] },
        ],
      }),
    );
    const call = (await recorded()).find((e) => e.type === 'model_call');
    expect(call?.prompt).toBe(
      'system: Be brief.\nuser: Where is my order?\nassistant: Which one?\nuser: The blue one.',
    );
    expect(call?.response).toBe('Hi there.');
  });

  it('records a failed call and rethrows the SDK error', async () => {
    const client = h.arbiter.wrap(anthropic, EXPERIMENT);
    await expect(
      h.arbiter.withUser('a-4', () => client.messages.create({ ...params, model: FAILING_MODEL })),
    ).rejects.toBeInstanceOf(Anthropic.BadRequestError);
    await expectOneCall('a-4', {
      model: FAILING_MODEL,
      error: /^BadRequestError: 400/,
      minLatency: RESPONSE_DELAY_MS,
      prompt: 'user: Hi',
    });
  });
});

describe('recordModelText: false', () => {
  it('sends the measurements without prompt or response text', async () => {
    const quiet = new Arbiter({
      apiKey: h.fake.apiKey,
      baseUrl: h.fake.baseUrl,
      logger: memoryLogger(),
      flushIntervalMs: 3_600_000,
      trackExposures: false,
      recordModelText: false,
    });
    await quiet.ready();
    try {
      const client = quiet.wrap(openai, EXPERIMENT);
      await quiet.withUser('private-1', () => client.chat.completions.create(chatParams));
      await quiet.flush();
      const call = [...h.fake.events.values()].find(
        (e) => e.type === 'model_call' && e.user_id === 'private-1',
      );
      expect(call).toMatchObject({ model: 'gpt-test', input_tokens: USAGE.input });
      expect(call).not.toHaveProperty('prompt');
      expect(call).not.toHaveProperty('response');
    } finally {
      await quiet.close();
    }
  });
});

describe('interceptModelCall', () => {
  it('hands the variant to fn and records what the call returned', async () => {
    const variant = h.arbiter.assign(EXPERIMENT, 'i-1');
    let given: string | null | undefined;
    const message = await h.arbiter.interceptModelCall(EXPERIMENT, 'i-1', (v) => {
      given = v;
      return anthropic.messages.create({
        model: 'claude-test',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'Hi' }],
      });
    });
    expect(given).toBe(variant);
    expect(message.type).toBe('message');
    // the explicit form sees the result, not the request: response text only
    await expectOneCall('i-1', {
      model: 'claude-test',
      input: USAGE.input,
      output: USAGE.output,
      minLatency: RESPONSE_DELAY_MS,
      response: 'Hi there.',
    });
  });

  it('records a streamed result once the stream ends', async () => {
    const stream = await h.arbiter.interceptModelCall(EXPERIMENT, 'i-2', () =>
      openai.chat.completions.create({
        ...chatParams,
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    expect(await recorded()).toEqual([
      expect.objectContaining({ type: 'exposure', user_id: 'i-2' }),
    ]);
    for await (const _ of stream) {
    }
    h.fake.events.clear();
    await h.arbiter.flush();
    const events = await recorded();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'model_call',
      input_tokens: USAGE.input,
      output_tokens: USAGE.output,
    });
  });

  it('records an error thrown by fn and rethrows it', async () => {
    class QuotaError extends Error {}
    await expect(
      h.arbiter.interceptModelCall(EXPERIMENT, 'i-3', async () => {
        throw new QuotaError('out of quota');
      }),
    ).rejects.toThrow('out of quota');
    const call = (await recorded()).find((e) => e.type === 'model_call');
    expect(call?.error).toBe('QuotaError: out of quota');
  });

  it('records no model_call the API would refuse (a NUL in the error), with one log line; the exposure goes', async () => {
    const logger = memoryLogger();
    const strict = new Arbiter({
      apiKey: h.fake.apiKey,
      baseUrl: h.fake.baseUrl,
      logger,
      flushIntervalMs: 3_600_000,
      trackExposures: false,
    });
    await strict.ready();
    try {
      await expect(
        strict.interceptModelCall(EXPERIMENT, 'i-5', async () => {
          throw new Error('bad\u0000byte');
        }),
      ).rejects.toThrow('bad');
      await strict.flush();
      const events = [...h.fake.events.values()].filter((e) => e.user_id === 'i-5');
      expect(events.map((e) => e.type)).toEqual(['exposure']);
      expect(logger.lines).toEqual([
        'warn model_call not recorded: error holds a NUL character or an unpaired surrogate',
      ]);
    } finally {
      await strict.close();
    }
  });

  it('runs fn unrecorded for an experiment the config does not have', async () => {
    const out = await h.arbiter.interceptModelCall('nope', 'i-4', (v) => `variant ${v}`);
    expect(out).toBe('variant null');
    expect(await recorded()).toEqual([]);
  });
});

describe('targeting', () => {
  it('records a wrapped call only for a user the targeting admits, reading withUser’s attributes', async () => {
    h.fake.setConfig(configOf(2, twoArms({ targeting: { plan: 'pro' } })));
    const client = new Arbiter({
      apiKey: h.fake.apiKey,
      baseUrl: h.fake.baseUrl,
      logger: memoryLogger(),
      flushIntervalMs: 3_600_000,
      trackExposures: false,
    });
    try {
      expect(await client.ready()).toBe(true);
      const wrapped = client.wrap(openai, EXPERIMENT);
      const call = () => wrapped.chat.completions.create(chatParams);
      await client.withUser('ann', call, { plan: 'pro' });
      await client.withUser('bob', call, { plan: 'free' });
      await client.withUser('cy', call);
      await client.flush();
      const events = [...h.fake.events.values()].map((e) => `${e.type}:${e.user_id}`).sort();
      expect(events).toEqual(['exposure:ann', 'model_call:ann']);
    } finally {
      await client.close();
      h.fake.setConfig(configOf(1, twoArms()));
    }
  });
});

describe('withPrompt', () => {
  const resolved = { name: 'support-reply', version: 3 };

  it('wrapped calls, explicit calls and nested withUser record the prompt name and version', async () => {
    const client = h.arbiter.wrap(openai, EXPERIMENT);
    await h.arbiter.withUser('p-1', () =>
      h.arbiter.withPrompt(resolved, () => client.chat.completions.create(chatParams)),
    );
    await h.arbiter.withPrompt(resolved, () =>
      h.arbiter.withUser('p-2', () => client.chat.completions.create(chatParams)),
    );
    await h.arbiter.withPrompt(resolved, () =>
      h.arbiter.interceptModelCall(EXPERIMENT, 'p-3', () =>
        openai.chat.completions.create(chatParams),
      ),
    );
    await h.arbiter.withUser('p-4', () => client.chat.completions.create(chatParams));
    const calls = (await recorded()).filter((e) => e.type === 'model_call');
    const byUser = Object.fromEntries(calls.map((e) => [e.user_id, e.metadata]));
    const carried = { prompt_name: 'support-reply', prompt_version: 3 };
    expect(byUser).toEqual({ 'p-1': carried, 'p-2': carried, 'p-3': carried, 'p-4': undefined });
    // The exposures carry no prompt: only the model call is made with it.
    const exposures = (await recorded()).filter((e) => e.type === 'exposure');
    expect(exposures.map((e) => e.metadata)).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('a default (no version) records no prompt', async () => {
    const client = h.arbiter.wrap(openai, EXPERIMENT);
    const fallback = h.arbiter.prompts.get('nowhere', 'p-5', 'Hi');
    expect(fallback.version).toBeNull();
    await h.arbiter.withUser('p-5', () =>
      h.arbiter.withPrompt(fallback, () => client.chat.completions.create(chatParams)),
    );
    const call = (await recorded()).find((e) => e.type === 'model_call');
    expect(call).toBeDefined();
    expect(call).not.toHaveProperty('metadata');
  });
});
