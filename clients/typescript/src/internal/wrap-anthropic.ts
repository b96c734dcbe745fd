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

/** The Anthropic SDK method `wrap` intercepts, by its path on the client. */
export const ANTHROPIC_METHODS = ['messages.create'] as const;

/**
 * A Message carries `usage.input_tokens`/`output_tokens`, the input counted without the prompt
 * cache: `cache_read_input_tokens` and `cache_creation_input_tokens` come apart and are added
 * into the input here, as the wire counts them. A stream opens with `message_start` (model and
 * input tokens) and its `message_delta` events carry cumulative output tokens.
 */
export const anthropicReader: ProviderReader = {
  readRequest(params, into) {
    const p = asObject(params);
    if (p !== null) setPrompt(into, conversationText(p.messages, p.system));
  },
  readResult(result, into) {
    const r = asObject(result);
    if (r === null || r.type !== 'message') return;
    setModel(into, r.model);
    readUsage(r.usage, into);
    setResponse(into, textOf(r.content));
  },
  readChunk(chunk, into) {
    const c = asObject(chunk);
    if (c === null) return;
    if (c.type === 'message_start') this.readResult(c.message, into);
    else if (c.type === 'message_delta') readUsage(c.usage, into);
    else if (c.type === 'content_block_delta') {
      const delta = asObject(c.delta);
      if (delta?.type === 'text_delta') appendResponse(into, delta.text);
    }
  },
};

function readUsage(usage: unknown, into: CallMeasure): void {
  const u = asObject(usage);
  if (u === null) return;
  const count = (value: unknown) => (typeof value === 'number' ? value : 0);
  const read = u.cache_read_input_tokens;
  setTokens(into, {
    input:
      typeof u.input_tokens === 'number'
        ? u.input_tokens + count(read) + count(u.cache_creation_input_tokens)
        : undefined,
    output: u.output_tokens,
    cached: typeof u.input_tokens === 'number' ? read : undefined,
  });
}
