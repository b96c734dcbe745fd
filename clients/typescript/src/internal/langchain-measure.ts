import {
  asObject,
  type CallMeasure,
  type Json,
  setModel,
  setPrompt,
  setResponse,
  setTokens,
  textOf,
} from './model-call-measure.ts';

/**
 * Reads LangChain JS's run shapes (`@langchain/core` messages and `LLMResult`) into a model
 * call's measure. Unknown shapes are skipped.
 */

/** LangChain's message types as the roles `wrap` writes. */
const ROLES: Record<string, string> = {
  human: 'user',
  ai: 'assistant',
  system: 'system',
  developer: 'system',
  tool: 'tool',
  function: 'tool',
  generic: 'user',
};

/** The model a run starts with: its invocation parameters', else LangSmith's `ls_model_name`. */
export function readStart(extraParams: unknown, metadata: unknown, into: CallMeasure): void {
  const invocation = asObject(asObject(extraParams)?.invocation_params);
  setModel(into, asObject(metadata)?.ls_model_name);
  setModel(into, invocation?.model ?? invocation?.model_name);
}

/** A chat-model run's messages (the first list: one run per list) as `role: text` lines. */
export function readChatPrompt(messages: unknown, into: CallMeasure): void {
  const list = Array.isArray(messages) ? messages[0] : undefined;
  if (!Array.isArray(list)) return;
  const lines: string[] = [];
  for (const message of list) {
    const m = asObject(message);
    if (m === null) continue;
    const text = textOf(m.content);
    if (text !== '') lines.push(`${roleOf(m)}: ${text}`);
  }
  setPrompt(into, lines.join('\n'));
}

/** A text LLM run's prompt (the first: one run per prompt). */
export function readTextPrompt(prompts: unknown, into: CallMeasure): void {
  const first = Array.isArray(prompts) ? prompts[0] : undefined;
  if (typeof first === 'string' && first !== '') setPrompt(into, `user: ${first}`);
}

/**
 * The end of a run: the message's `usage_metadata` and `response_metadata` (chat models), else
 * `llmOutput.tokenUsage` (text LLMs); the first generation's text.
 */
export function readEnd(output: unknown, into: CallMeasure): void {
  const o = asObject(output);
  if (o === null) return;
  const generation = Array.isArray(o.generations)
    ? asObject(Array.isArray(o.generations[0]) ? o.generations[0][0] : undefined)
    : null;
  const message = asObject(generation?.message);
  const llmOutput = asObject(o.llmOutput);
  const tokenUsage = asObject(llmOutput?.tokenUsage) ?? asObject(llmOutput?.estimatedTokenUsage);
  setTokens(into, { input: tokenUsage?.promptTokens, output: tokenUsage?.completionTokens });
  // `usage_metadata` counts cache reads in `input_tokens` and reasoning in `output_tokens`.
  const usage = asObject(message?.usage_metadata);
  setTokens(into, {
    input: usage?.input_tokens,
    output: usage?.output_tokens,
    cached: asObject(usage?.input_token_details)?.cache_read,
    reasoning: asObject(usage?.output_token_details)?.reasoning,
  });
  const responseMetadata = asObject(message?.response_metadata);
  setModel(into, llmOutput?.model_name ?? llmOutput?.model);
  setModel(into, responseMetadata?.model_name ?? responseMetadata?.model);
  setModel(into, asObject(generation?.generationInfo)?.model_name);
  const text = typeof generation?.text === 'string' ? generation.text : textOf(message?.content);
  setResponse(into, text);
}

/** Whether a streamed token carries output: text, or a chunk with tool-call parts. */
export function isToken(token: unknown, fields: unknown): boolean {
  if (typeof token === 'string' && token !== '') return true;
  const chunks = asObject(asObject(asObject(fields)?.chunk)?.message)?.tool_call_chunks;
  return Array.isArray(chunks) && chunks.length > 0;
}

function roleOf(m: Json): string {
  let type: unknown = m.type;
  if (typeof m.getType === 'function') {
    try {
      type = (m.getType as () => unknown).call(m);
    } catch {}
  } else if (typeof m._getType === 'function') {
    try {
      type = (m._getType as () => unknown).call(m);
    } catch {}
  }
  if (type === 'generic' && typeof m.role === 'string') return m.role;
  return (typeof type === 'string' ? ROLES[type] : undefined) ?? 'user';
}
