import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: {
    model: string;
    messages: Array<{ role: string; content: string }>;
  };
}

/** What the fake answers: a status with a raw body, or the assistant's message content. */
export type JudgeReply = { content: string } | { status: number; body: string };

export interface FakeJudgeServer {
  /** Base URL with the /v1 prefix, as configured for a hosted endpoint. */
  baseUrl: string;
  requests: ChatRequest[];
  answer: (request: ChatRequest) => JudgeReply;
  close(): Promise<void>;
}

/** The text between <response> tags of the user message: what the judge is grading. */
export function gradedResponse(request: ChatRequest): string {
  const user = request.body.messages.find((m) => m.role === 'user')?.content ?? '';
  return /<response>\n([\s\S]*)\n<\/response>/.exec(user)?.[1] ?? '';
}

/**
 * Grades from the response text so arms can differ: `quality=<x>` in the response is the
 * score. Tests change `answer` to script failures.
 */
export function scoreFromQualityMarker(request: ChatRequest): JudgeReply {
  const quality = /quality=([0-9.]+)/.exec(gradedResponse(request))?.[1] ?? '0.5';
  return { content: `{"score": ${quality}}` };
}

function completion(model: string, content: string): string {
  return JSON.stringify({
    id: `chatcmpl-${Math.random().toString(36).slice(2)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 50, completion_tokens: 8, total_tokens: 58 },
  });
}

/** A local OpenAI-compatible chat-completions endpoint that records every request. */
export async function startFakeJudge(): Promise<FakeJudgeServer> {
  const requests: ChatRequest[] = [];
  const fake: FakeJudgeServer = {
    baseUrl: '',
    requests,
    answer: scoreFromQualityMarker,
    close: () =>
      new Promise((done) => {
        server.close(() => done());
        // the SDK keeps connections alive; close() alone would wait for them
        server.closeAllConnections();
      }),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
        return;
      }
      const request: ChatRequest = {
        method: req.method,
        path: req.url,
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
      };
      requests.push(request);
      const reply = fake.answer(request);
      if ('status' in reply) {
        // retry-after-ms keeps the SDK's retries fast in tests
        res
          .writeHead(reply.status, { 'content-type': 'application/json', 'retry-after-ms': '5' })
          .end(reply.body);
        return;
      }
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(completion(request.body.model, reply.content));
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return fake;
}
