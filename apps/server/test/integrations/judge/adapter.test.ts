import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ChatCompletionsJudge,
  createJudge,
} from '../../../src/integrations/judge/chat-completions-judge.ts';
import { parseScore } from '../../../src/integrations/judge/parse-score.ts';
import {
  type FakeJudgeServer,
  scoreFromQualityMarker,
  startFakeJudge,
} from '../../support/judge-server.ts';

let fake: FakeJudgeServer;
const input = {
  rubric: 'Rate how helpful the answer is.',
  prompt: 'How do I reset my password?',
  response: 'Open settings, choose Security, then Reset. quality=0.8',
};

beforeAll(async () => {
  fake = await startFakeJudge();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
  fake.answer = scoreFromQualityMarker;
});

const judge = () =>
  createJudge({
    judgeBaseUrl: fake.baseUrl,
    judgeApiKey: 'sk-judge-test',
    judgeModel: 'grader-1',
  })!;

describe('the chat-completions judge', () => {
  it('sends the rubric, the prompt and the response with the key, and reads the score', async () => {
    expect(await judge().score(input)).toEqual({ ok: true, score: 0.8 });
    expect(fake.requests).toHaveLength(1);
    const [request] = fake.requests;
    expect(request?.path).toBe('/v1/chat/completions');
    expect(request?.headers.authorization).toBe('Bearer sk-judge-test');
    expect(request?.body.model).toBe('grader-1');
    const [system, user] = request!.body.messages;
    expect(system?.role).toBe('system');
    expect(system?.content).toContain(input.rubric);
    expect(system?.content).toContain('{"score": <number between 0 and 1>}');
    expect(user?.role).toBe('user');
    expect(user?.content).toContain(input.prompt);
    expect(user?.content).toContain(input.response);
  });

  it('finds the JSON in fenced or wordy answers and clamps the score to [0, 1]', async () => {
    const answers: Record<string, number> = {
      '```json\n{"score": 0.25}\n```': 0.25,
      'Here is my verdict: {"score": 1.7} — excellent.': 1,
      '{"score": -0.3}': 0,
    };
    for (const [content, score] of Object.entries(answers)) {
      fake.answer = () => ({ content });
      expect(await judge().score(input)).toEqual({ ok: true, score });
    }
  });

  it('answers a malformed or non-numeric reply with an outcome, not a throw', async () => {
    for (const content of ['The answer is good.', '{"score": "high"}', '{"grade": 0.4}', '']) {
      fake.answer = () => ({ content });
      const outcome = await judge().score(input);
      expect(outcome.ok).toBe(false);
      expect(outcome.ok ? '' : outcome.reason).not.toBe('');
    }
  });

  it('turns a 500 into an outcome after at most two retries', async () => {
    fake.answer = () => ({ status: 500, body: '{"error":{"message":"boom"}}' });
    const outcome = await judge().score(input);
    expect(outcome).toEqual({ ok: false, reason: expect.stringContaining('answered 500') });
    expect(fake.requests).toHaveLength(3);
  });

  it('does not retry a 401 and reports it', async () => {
    fake.answer = () => ({ status: 401, body: '{"error":{"message":"bad key"}}' });
    expect(await judge().score(input)).toEqual({
      ok: false,
      reason: expect.stringContaining('answered 401'),
    });
    expect(fake.requests).toHaveLength(1);
  });

  it('turns a timeout and an unreachable endpoint into outcomes', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((ready) => silent.listen(0, '127.0.0.1', ready));
    const port = (silent.address() as AddressInfo).port;
    const slow = new ChatCompletionsJudge({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      apiKey: 'k',
      model: 'm',
      timeoutMs: 100,
      maxRetries: 0,
    });
    expect(await slow.score(input)).toEqual({ ok: false, reason: 'the judge endpoint timed out' });
    silent.closeAllConnections();
    await new Promise((done) => silent.close(done));
    const gone = new ChatCompletionsJudge({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      apiKey: null,
      model: 'm',
      maxRetries: 0,
    });
    expect(await gone.score(input)).toEqual({
      ok: false,
      reason: expect.stringContaining('unreachable'),
    });
  });

  it('is not created without a base URL', () => {
    expect(createJudge({ judgeBaseUrl: null, judgeApiKey: 'k', judgeModel: 'm' })).toBeNull();
  });
});

describe('parseScore', () => {
  it('takes the first object that carries a score', () => {
    expect(parseScore('{"reasoning": "fine"} then {"score": 0.6}')).toEqual({
      ok: true,
      score: 0.6,
    });
    expect(parseScore(null)).toMatchObject({ ok: false });
    expect(parseScore('{"score": null}')).toMatchObject({ ok: false });
  });
});
