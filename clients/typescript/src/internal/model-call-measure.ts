import { MAX_MODEL_TEXT_LENGTH } from './constants.ts';

/** What a model call reports, gathered from the request and the provider's response or stream. */
export interface CallMeasure {
  model?: string;
  input_tokens?: number;
  output_tokens?: number;
  /** Of the input, the tokens read from the provider's cache. */
  cached_input_tokens?: number;
  /** Of the output, the tokens the model spent reasoning. */
  reasoning_tokens?: number;
  /** Error class and message when the call failed; null when it succeeded. */
  error?: string | null;
  /** The request's messages as text (`role: content` lines): what a judge model grades. */
  prompt?: string;
  /** The text the model answered, streamed parts joined. */
  response?: string;
  /** What the provider says the call cost, when it says (the AI SDK's provider metadata). */
  cost_usd?: number;
  /** A stream's first token (text, reasoning or tool input) after this many ms; integrations only. */
  time_to_first_token_ms?: number;
}

/** Reads one provider's request and response shapes. Readers ignore shapes that are not theirs. */
export interface ProviderReader {
  /** The parameters the caller passed to the SDK method. */
  readRequest(params: unknown, into: CallMeasure): void;
  /** A complete, non-streamed response. */
  readResult(result: unknown, into: CallMeasure): void;
  /** One item of a streamed response. */
  readChunk(chunk: unknown, into: CallMeasure): void;
}

export type Json = Record<string, unknown>;

export function asObject(value: unknown): Json | null {
  return typeof value === 'object' && value !== null ? (value as Json) : null;
}

type TokenField = 'input_tokens' | 'output_tokens' | 'cached_input_tokens' | 'reasoning_tokens';

/** Sets a count when the provider sent one; later values win because stream counts are cumulative. */
export function setCount(into: CallMeasure, field: TokenField, value: unknown) {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) into[field] = value;
}

/** Token counts as a provider reports them; the cached and reasoning counts are parts of the totals. */
export interface ReportedTokens {
  input?: unknown;
  output?: unknown;
  cached?: unknown;
  reasoning?: unknown;
}

/** Sets each count the provider reported: every reader's usage ends here. */
export function setTokens(into: CallMeasure, tokens: ReportedTokens): void {
  setCount(into, 'input_tokens', tokens.input);
  setCount(into, 'output_tokens', tokens.output);
  setCount(into, 'cached_input_tokens', tokens.cached);
  setCount(into, 'reasoning_tokens', tokens.reasoning);
}

export function setModel(into: CallMeasure, value: unknown) {
  if (typeof value === 'string' && value !== '') into.model = value;
}

/** Plain text of a message content: a string, or the `text` of its parts (images and tools skipped). */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => {
      const p = asObject(part);
      return p !== null && typeof p.text === 'string' ? p.text : '';
    })
    .filter((t) => t !== '')
    .join('\n');
}

/** `role: content` lines of a message list, the way a person would read the conversation. */
export function conversationText(messages: unknown, system?: unknown): string {
  const lines: string[] = [];
  const sys = textOf(system);
  if (sys !== '') lines.push(`system: ${sys}`);
  if (typeof messages === 'string') lines.push(`user: ${messages}`);
  else if (Array.isArray(messages)) {
    for (const m of messages) {
      const o = asObject(m);
      if (o === null) continue;
      const text = textOf(o.content);
      if (text !== '') lines.push(`${typeof o.role === 'string' ? o.role : 'user'}: ${text}`);
    }
  }
  return lines.join('\n');
}

function capped(text: string): string {
  return text.length > MAX_MODEL_TEXT_LENGTH ? text.slice(0, MAX_MODEL_TEXT_LENGTH) : text;
}

export function setPrompt(into: CallMeasure, text: string) {
  if (text !== '') into.prompt = capped(text);
}

/** A complete response replaces what streamed parts had gathered. */
export function setResponse(into: CallMeasure, text: string) {
  if (text !== '') into.response = capped(text);
}

export function appendResponse(into: CallMeasure, part: unknown) {
  if (typeof part === 'string' && part !== '') into.response = capped((into.response ?? '') + part);
}
