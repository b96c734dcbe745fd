import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Answers are held back this long, so a measured latency has a known floor. */
export const RESPONSE_DELAY_MS = 30;
/** Gap between streamed events. */
export const STREAM_GAP_MS = 5;
/** A request for this model fails with 400, in the provider's error format. */
export const FAILING_MODEL = 'model-that-fails';

export const USAGE = { input: 11, output: 7 };
/** The answer to a Chat Completions request asking for JSON (`response_format`). */
export const JSON_ANSWER = '{"greeting":"Hi there."}';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Speaks just enough of the OpenAI (Chat Completions, Responses) and Anthropic (Messages) HTTP
 * protocols, JSON and SSE, for the real SDKs to parse its answers.
 */
export async function startFakeLlm(): Promise<{
  url: string;
  /** Every request received, in arrival order: its path and JSON body. */
  requests: ReceivedRequest[];
  /**
   * The next streamed answer stops after its first event until the returned function is
   * called, so a test can look at what was recorded while a stream is still open.
   */
  holdNextStream(): () => void;
  close(): Promise<void>;
}> {
  const gates: Promise<void>[] = [];
  const requests: ReceivedRequest[] = [];
  const server = createServer((req, res) => void handle(req, res, gates, requests));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    holdNextStream() {
      let release = () => {};
      gates.push(
        new Promise<void>((resolve) => {
          release = resolve;
        }),
      );
      return release;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface ReceivedRequest {
  path: string;
  body: Record<string, unknown>;
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  gates: Promise<void>[],
  requests: ReceivedRequest[],
): Promise<void> {
  let text = '';
  for await (const chunk of req) text += chunk;
  const body = JSON.parse(text) as Record<string, unknown>;
  requests.push({ path: req.url ?? '', body });
  const model = String(body.model);
  await sleep(RESPONSE_DELAY_MS);
  const anthropic = req.url === '/v1/messages';
  if (model === FAILING_MODEL) {
    const error = anthropic
      ? { type: 'error', error: { type: 'invalid_request_error', message: 'bad model' } }
      : { error: { message: 'bad model', type: 'invalid_request_error', code: null } };
    res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(error));
    return;
  }
  const events =
    req.url === '/v1/chat/completions'
      ? chat(model, body)
      : req.url === '/v1/responses'
        ? responses(model)
        : anthropic
          ? messages(model)
          : null;
  if (events === null) {
    res.writeHead(404).end();
    return;
  }
  if (body.stream !== true) {
    res
      .writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_1' })
      .end(JSON.stringify(events.json));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'req_1' });
  const gate = gates.shift();
  for (const [i, e] of events.stream.entries()) {
    if (i === 1 && gate !== undefined) await gate;
    await sleep(STREAM_GAP_MS);
    const head = e.event === undefined ? '' : `event: ${e.event}\n`;
    res.write(`${head}data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`);
  }
  res.end();
}

interface Answer {
  json: unknown;
  stream: { event?: string; data: unknown }[];
}

function chat(model: string, body: Record<string, unknown>): Answer {
  const usage = {
    prompt_tokens: USAGE.input,
    completion_tokens: USAGE.output,
    total_tokens: USAGE.input + USAGE.output,
  };
  const base = { id: 'chatcmpl-1', created: 1, model };
  const chunk = (delta: object, finish: string | null) => ({
    ...base,
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const includeUsage = (body.stream_options as { include_usage?: boolean } | undefined)
    ?.include_usage;
  // Structured output: the AI SDK sends a `response_format` and parses the answer as JSON.
  const json = body.response_format !== undefined;
  const text = json ? JSON_ANSWER : 'Hi there.';
  const [first, rest] = json ? [text.slice(0, 10), text.slice(10)] : ['Hi', ' there.'];
  const answer = toolCallDue(body)
    ? { message: toolCall(body), finish_reason: 'tool_calls' }
    : { message: { role: 'assistant', content: text }, finish_reason: 'stop' };
  return {
    json: {
      ...base,
      object: 'chat.completion',
      choices: [{ index: 0, ...answer }],
      usage,
    },
    stream: [
      { data: chunk({ role: 'assistant', content: first }, null) },
      { data: chunk({ content: rest }, null) },
      { data: chunk({}, 'stop') },
      ...(includeUsage
        ? [{ data: { ...base, object: 'chat.completion.chunk', choices: [], usage } }]
        : []),
      { data: '[DONE]' },
    ],
  };
}

/** A request offering tools and holding no tool result yet is answered with a call of the first. */
function toolCallDue(body: Record<string, unknown>): boolean {
  const tools = body.tools as unknown[] | undefined;
  const messages = body.messages as { role?: string }[] | undefined;
  return (
    Array.isArray(tools) && tools.length > 0 && !(messages ?? []).some((m) => m.role === 'tool')
  );
}

function toolCall(body: Record<string, unknown>) {
  const [first] = body.tools as { function: { name: string } }[];
  return {
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id: 'call_1',
        type: 'function',
        function: { name: first?.function.name, arguments: '{}' },
      },
    ],
  };
}

function responses(model: string): Answer {
  const response = (status: string, usage: object | null) => ({
    id: 'resp_1',
    object: 'response',
    created_at: 1,
    model,
    status,
    output:
      status === 'completed'
        ? [
            {
              type: 'message',
              id: 'msg_1',
              status: 'completed',
              role: 'assistant',
              content: [{ type: 'output_text', text: 'Hi there.', annotations: [] }],
            },
          ]
        : [],
    usage,
  });
  const usage = {
    input_tokens: USAGE.input,
    output_tokens: USAGE.output,
    total_tokens: USAGE.input + USAGE.output,
  };
  const done = response('completed', usage);
  const item = (status: string, text: string) => ({
    type: 'message',
    id: 'msg_1',
    status,
    role: 'assistant',
    content: text === '' ? [] : [{ type: 'output_text', text, annotations: [] }],
  });
  const part = (text: string) => ({ type: 'output_text', text, annotations: [] });
  const at = { item_id: 'msg_1', output_index: 0, content_index: 0 };
  // The event sequence of the real API: the SDK's stream() helper builds its snapshot from it.
  const sequence: { type: string; [field: string]: unknown }[] = [
    { type: 'response.created', response: response('in_progress', null) },
    { type: 'response.output_item.added', output_index: 0, item: item('in_progress', '') },
    { type: 'response.content_part.added', ...at, part: part('') },
    { type: 'response.output_text.delta', ...at, delta: 'Hi there.' },
    { type: 'response.output_text.done', ...at, text: 'Hi there.' },
    { type: 'response.content_part.done', ...at, part: part('Hi there.') },
    { type: 'response.output_item.done', output_index: 0, item: item('completed', 'Hi there.') },
    { type: 'response.completed', response: done },
  ];
  return {
    json: done,
    stream: sequence.map((data, sequence_number) => ({
      event: data.type,
      data: { ...data, sequence_number },
    })),
  };
}

function messages(model: string): Answer {
  const message = (usage: object) => ({
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text: 'Hi there.' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage,
  });
  return {
    json: message({ input_tokens: USAGE.input, output_tokens: USAGE.output }),
    stream: [
      {
        event: 'message_start',
        data: {
          type: 'message_start',
          message: {
            ...message({ input_tokens: USAGE.input, output_tokens: 1 }),
            content: [],
            stop_reason: null,
          },
        },
      },
      {
        event: 'content_block_start',
        data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      },
      {
        event: 'content_block_delta',
        data: {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'text_delta', text: 'Hi there.' },
        },
      },
      { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
      {
        event: 'message_delta',
        data: {
          type: 'message_delta',
          delta: { stop_reason: 'end_turn', stop_sequence: null },
          usage: { output_tokens: USAGE.output },
        },
      },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ],
  };
}
