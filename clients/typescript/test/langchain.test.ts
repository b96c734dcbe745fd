import { StringOutputParser } from '@langchain/core/output_parsers';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import { ChatOpenAI } from '@langchain/openai';
import { describe, expect, it } from 'vitest';
import type { ArbiterEvent } from '../src/internal/wire.ts';
import { ArbiterCallbackHandler } from '../src/langchain.ts';
import { FAILING_MODEL, RESPONSE_DELAY_MS, STREAM_GAP_MS, USAGE } from './support/fake-llm.ts';
import { EXPERIMENT, EXPERIMENT_ID, useModelCallHarness } from './support/model-call-harness.ts';

const h = useModelCallHarness();
const { recorded } = h;

function chatModel(model = 'gpt-test', fields: ConstructorParameters<typeof ChatOpenAI>[0] = {}) {
  return new ChatOpenAI({
    model,
    apiKey: 'sk-test',
    configuration: { baseURL: `${h.llm.url}/v1` },
    maxRetries: 0,
    ...fields,
  });
}

/** prompt | ChatOpenAI | StringOutputParser */
function chain(model = chatModel()) {
  return ChatPromptTemplate.fromMessages([
    ['system', 'Be kind.'],
    ['human', '{question}'],
  ])
    .pipe(model)
    .pipe(new StringOutputParser());
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

/** What the fake model answers to the chain's prompt. */
const answered = {
  model: 'gpt-test',
  input_tokens: USAGE.input,
  output_tokens: USAGE.output,
  error: null,
  prompt: 'system: Be kind.\nuser: Hi',
  response: 'Hi there.',
};

describe('ArbiterCallbackHandler: an LCEL chain (prompt | ChatOpenAI | StringOutputParser)', () => {
  it('invoke: one model_call with latency, tokens, model, prompt and response', async () => {
    const handler = new ArbiterCallbackHandler({ client: h.arbiter, experiment: EXPERIMENT });
    const out = await h.arbiter.withUser('l-1', () =>
      chain().invoke({ question: 'Hi' }, { callbacks: [handler] }),
    );
    expect(out).toBe('Hi there.');
    const call = await oneCall('l-1');
    expect(call).toMatchObject(answered);
    expect(call.latency_ms).toBeGreaterThanOrEqual(RESPONSE_DELAY_MS);
    expect(call).not.toHaveProperty('metadata');
  });

  it('stream: recorded when the stream ends, with the time to first token', async () => {
    const handler = new ArbiterCallbackHandler({ client: h.arbiter, experiment: EXPERIMENT });
    const release = h.llm.holdNextStream();
    let text = '';
    await h.arbiter.withUser('l-2', async () => {
      const stream = await chain().stream({ question: 'Hi' }, { callbacks: [handler] });
      const reader = stream[Symbol.asyncIterator]();
      let step = await reader.next();
      while (!step.done && step.value === '') step = await reader.next();
      text += step.value ?? '';
      // The answer is held after its first event: the exposure is in, the model_call is not.
      expect((await recorded()).map((e) => e.type)).toEqual(['exposure']);
      release();
      for (step = await reader.next(); !step.done; step = await reader.next()) text += step.value;
    });
    expect(text).toBe('Hi there.');
    const call = await oneCall('l-2');
    expect(call).toMatchObject(answered);
    const ttft = (call.metadata as { time_to_first_token_ms: number }).time_to_first_token_ms;
    expect(ttft).toBeGreaterThanOrEqual(RESPONSE_DELAY_MS + STREAM_GAP_MS);
    expect(call.latency_ms).toBeGreaterThan(ttft);
  });

  it('concurrent runs through one handler are kept apart, invoke and stream mixed', async () => {
    const handler = new ArbiterCallbackHandler({ client: h.arbiter, experiment: EXPERIMENT });
    const users = Array.from({ length: 12 }, (_, i) => `lc-${i}`);
    const c = chain();
    await Promise.all(
      users.map((user, i) =>
        h.arbiter.withUser(user, async () => {
          if (i % 2 === 0) {
            expect(await c.invoke({ question: `Hi from ${user}` }, { callbacks: [handler] })).toBe(
              'Hi there.',
            );
          } else {
            let text = '';
            for await (const part of await c.stream(
              { question: `Hi from ${user}` },
              { callbacks: [handler] },
            ))
              text += part;
            expect(text).toBe('Hi there.');
          }
        }),
      ),
    );
    const events = await recorded();
    const calls = events.filter((e) => e.type === 'model_call');
    expect(calls.map((e) => e.user_id).sort()).toEqual([...users].sort());
    for (const call of calls) {
      // Each run's own prompt: no run was attributed to another user's call.
      expect(call.prompt).toBe(`system: Be kind.\nuser: Hi from ${call.user_id}`);
      expect(call).toMatchObject({ response: 'Hi there.', output_tokens: USAGE.output });
    }
    const streamed = calls.filter((c) => users.indexOf(c.user_id) % 2 === 1);
    for (const call of streamed) expect(call.metadata).toHaveProperty('time_to_first_token_ms');
    const exposures = events.filter((e) => e.type === 'exposure');
    for (const exposure of exposures) {
      expect(exposure.variant).toBe(h.arbiter.assign(EXPERIMENT, exposure.user_id));
    }
  });

  it('a handler on the model itself; the user from run metadata or the handler option', async () => {
    const handler = new ArbiterCallbackHandler({
      client: h.arbiter,
      experiment: EXPERIMENT,
      user: 'l-fixed',
    });
    const c = chain(chatModel('gpt-test', { callbacks: [handler] }));
    await c.invoke({ question: 'Hi' }, { metadata: { arbiter_user_id: 'l-meta' } });
    expect((await oneCall('l-meta')).response).toBe('Hi there.');
    h.fake.events.clear();
    await c.invoke({ question: 'Hi' });
    expect((await oneCall('l-fixed')).response).toBe('Hi there.');
  });

  it('records a failed run and lets the error through', async () => {
    const handler = new ArbiterCallbackHandler({ client: h.arbiter, experiment: EXPERIMENT });
    await expect(
      h.arbiter.withUser('l-3', () =>
        chain(chatModel(FAILING_MODEL)).invoke({ question: 'Hi' }, { callbacks: [handler] }),
      ),
    ).rejects.toThrow(/bad model/);
    const call = await oneCall('l-3');
    expect(call.model).toBe(FAILING_MODEL);
    expect(call.error).toMatch(/bad model/);
    expect(call.latency_ms).toBeGreaterThanOrEqual(RESPONSE_DELAY_MS);
    expect(call.prompt).toBe('system: Be kind.\nuser: Hi');
  });

  it('runs with no user pass unrecorded', async () => {
    const handler = new ArbiterCallbackHandler({ client: h.arbiter, experiment: EXPERIMENT });
    expect(await chain().invoke({ question: 'Hi' }, { callbacks: [handler] })).toBe('Hi there.');
    expect(await recorded()).toEqual([]);
  });

  it('refuses a client that is not an Arbiter', () => {
    expect(
      () =>
        new ArbiterCallbackHandler({
          client: { getPrompt: () => null as never, withUser: (_u, fn) => fn() },
          experiment: EXPERIMENT,
        }),
    ).toThrow(TypeError);
  });
});
