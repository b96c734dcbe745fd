import {
  appendResponse,
  asObject,
  type CallMeasure,
  conversationText,
  type ProviderReader,
  setModel,
  setPrompt,
  setResponse,
  setTokens,
  textOf,
} from './model-call-measure.ts';

/** The OpenAI SDK methods `wrap` intercepts, by their path on the client. */
export const OPENAI_METHODS = ['chat.completions.create', 'responses.create'] as const;

/**
 * Chat Completions report `usage.prompt_tokens`/`completion_tokens` (cached input in
 * `prompt_tokens_details.cached_tokens`, reasoning in `completion_tokens_details`); a stream
 * reports them only in its last chunk, and only when the request set
 * `stream_options.include_usage`. The Responses API reports `usage.input_tokens`/`output_tokens`
 * (with `input_tokens_details`/`output_tokens_details`), streamed inside the final
 * `response.completed` (or `.incomplete`/`.failed`) event. Both count the parts in the totals.
 */
export const openAIReader: ProviderReader = {
  readRequest(params, into) {
    const p = asObject(params);
    if (p === null) return;
    // Chat Completions send `messages`; the Responses API `input` (text or items) and `instructions`.
    setPrompt(
      into,
      p.messages !== undefined
        ? conversationText(p.messages)
        : conversationText(p.input, p.instructions),
    );
  },
  readResult(result, into) {
    const r = asObject(result);
    if (r === null) return;
    setModel(into, r.model);
    readUsage(r.usage, into);
    setResponse(into, responseText(r));
    const error = asObject(r.error);
    if (r.object === 'response' && r.status === 'failed' && error !== null) {
      into.error = `ResponseFailed: ${String(error.message ?? error.code ?? 'failed')}`;
    }
  },
  readChunk(chunk, into) {
    const c = asObject(chunk);
    if (c === null) return;
    const response = asObject(c.response);
    if (typeof c.type === 'string' && c.type.startsWith('response.') && response !== null) {
      this.readResult(response, into);
      return;
    }
    if (c.type === 'response.output_text.delta') {
      appendResponse(into, c.delta);
      return;
    }
    if (c.object === 'chat.completion.chunk') {
      setModel(into, c.model);
      readUsage(c.usage, into);
      const choice = Array.isArray(c.choices) ? asObject(c.choices[0]) : null;
      appendResponse(into, asObject(choice?.delta)?.content);
    }
  },
};

function readUsage(usage: unknown, into: CallMeasure): void {
  const u = asObject(usage);
  if (u === null) return;
  const inputDetails = asObject(u.prompt_tokens_details ?? u.input_tokens_details);
  const outputDetails = asObject(u.completion_tokens_details ?? u.output_tokens_details);
  setTokens(into, {
    input: u.prompt_tokens ?? u.input_tokens,
    output: u.completion_tokens ?? u.output_tokens,
    cached: inputDetails?.cached_tokens,
    reasoning: outputDetails?.reasoning_tokens,
  });
}

/** The assistant text of a chat completion or a Responses API response. */
function responseText(r: Record<string, unknown>): string {
  if (Array.isArray(r.choices)) return textOf(asObject(asObject(r.choices[0])?.message)?.content);
  if (typeof r.output_text === 'string') return r.output_text;
  if (!Array.isArray(r.output)) return '';
  return r.output
    .map((item) => textOf(asObject(item)?.content))
    .filter((t) => t !== '')
    .join('\n');
}
