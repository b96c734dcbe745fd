import { EVENT_TEXT_LIMITS } from '@arbiter/contract';
import { isStorableText } from '../../schemas/text.ts';
import type { Attributes, AttributeValue, OtlpSpan } from './decode.ts';

/** The attributes (span, resource, or baggage copied onto the span) that name who and what. */
export const EXPERIMENT_ATTRIBUTE = 'arbiter.experiment';
export const USER_ATTRIBUTE = 'arbiter.user_id';

/**
 * `gen_ai.operation.name` values that are one model call. `generate_content` is the
 * convention's name for a multimodal generation (Gemini), a model call like chat.
 */
const MODEL_CALL_OPERATIONS = new Set(['chat', 'text_completion', 'generate_content']);
/** `llm.request.type` of OpenLLMetry's spans before they carried `gen_ai.operation.name`. */
const LEGACY_REQUEST_TYPES = new Set(['chat', 'completion']);

/** Status code ERROR in OTLP's Status.StatusCode. */
const STATUS_ERROR = 2;

/** A model_call as the events route takes it, without its event id, experiment and user. */
export interface ModelCallFields {
  type: 'model_call';
  timestamp: string;
  latency_ms?: number;
  input_tokens?: number;
  output_tokens?: number;
  cached_input_tokens?: number;
  reasoning_tokens?: number;
  model?: string;
  error: string | null;
  prompt?: string;
  response?: string;
}

export type SpanVerdict =
  | { kind: 'ignored' }
  | { kind: 'rejected'; reason: string }
  | {
      kind: 'model_call';
      eventId: string;
      experiment: string;
      user: string;
      startNs: bigint;
      fields: ModelCallFields;
    };

function isGenAiModelCall(attributes: Attributes): boolean {
  const operation = attributes.get('gen_ai.operation.name');
  if (typeof operation === 'string') return MODEL_CALL_OPERATIONS.has(operation);
  const legacy = attributes.get('llm.request.type');
  return (
    attributes.get('gen_ai.system') !== undefined &&
    typeof legacy === 'string' &&
    LEGACY_REQUEST_TYPES.has(legacy)
  );
}

function text(value: AttributeValue | undefined): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** The span's own attribute first, then the resource's. */
function identity(span: OtlpSpan, key: string): string | undefined {
  return text(span.attributes.get(key)) ?? text(span.resource.get(key));
}

function count(attributes: Attributes, ...keys: string[]): number | undefined {
  for (const key of keys) {
    const value = attributes.get(key);
    if (typeof value === 'number') return value;
    if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  }
  return undefined;
}

function errorOf(span: OtlpSpan): string | null {
  const type = text(span.attributes.get('error.type'));
  if (span.statusCode !== STATUS_ERROR && type === undefined) return null;
  const message = span.statusMessage;
  const error = type !== undefined && message !== '' ? `${type}: ${message}` : (type ?? message);
  return (error === '' ? 'error' : error).slice(0, EVENT_TEXT_LIMITS.error.maxLength);
}

/**
 * How long a span's prompt or response may be: the row's limit, as `wrap` keeps it, when the
 * text stays in the event row; uncut when an object store keeps model text, as for
 * POST /v1/events (the request's body limit bounds it then).
 */
export const ROW_TEXT_LIMIT = EVENT_TEXT_LIMITS.prompt.maxLength;

/** Model text cut at `limit`, left out when the database cannot store it. */
function storable(value: string | undefined, limit: number): string | undefined {
  if (value === undefined || value === '') return undefined;
  const cut = value.length > limit ? value.slice(0, limit) : value;
  return isStorableText(cut) ? cut : undefined;
}

type Json = Record<string, unknown>;

/** A message list, as JSON text (the usual attribute form) or as a structured value. */
function messagesOf(value: AttributeValue | undefined): Json[] {
  let list: unknown = value;
  if (typeof value === 'string') {
    try {
      list = JSON.parse(value);
    } catch {
      return [];
    }
  }
  if (!Array.isArray(list)) return [];
  return list.filter((m): m is Json => typeof m === 'object' && m !== null && !Array.isArray(m));
}

/** A message's text: the `text` parts of `parts` (the current convention) or a plain `content`. */
function messageText(message: Json): string {
  if (typeof message.content === 'string') return message.content;
  const parts = Array.isArray(message.parts) ? message.parts : [];
  return parts
    .map((p) => {
      const part = (typeof p === 'object' && p !== null ? p : {}) as Json;
      return part.type === 'text' && typeof part.content === 'string' ? part.content : '';
    })
    .filter((t) => t !== '')
    .join('\n');
}

/** `role: text` lines, the form `wrap` records a conversation in. */
function conversation(messages: readonly Json[], system?: string): string {
  const lines = system === undefined || system === '' ? [] : [`system: ${system}`];
  for (const m of messages) {
    const t = messageText(m);
    if (t !== '') lines.push(`${typeof m.role === 'string' ? m.role : 'user'}: ${t}`);
  }
  return lines.join('\n');
}

function answer(messages: readonly Json[]): string {
  return messages
    .map(messageText)
    .filter((t) => t !== '')
    .join('\n');
}

/** OpenLLMetry's indexed attributes: `gen_ai.prompt.0.role`, `gen_ai.prompt.0.content`, … */
function indexed(attributes: Attributes, prefix: string): Json[] {
  const out: Json[] = [];
  for (let i = 0; ; i++) {
    const role = attributes.get(`${prefix}.${i}.role`);
    const content = attributes.get(`${prefix}.${i}.content`);
    if (role === undefined && content === undefined) return out;
    out.push({ role, content: typeof content === 'string' ? content : '' });
  }
}

function systemInstructions(value: AttributeValue | undefined): string | undefined {
  if (typeof value !== 'string') return undefined;
  const parsed = messagesOf(value);
  return parsed.length > 0 ? answer(parsed) : value;
}

/**
 * Prompt and response text from wherever the instrumentation put it: the current convention's
 * `gen_ai.input.messages` / `gen_ai.output.messages` on the span or on its
 * `gen_ai.client.inference.operation.details` event, OpenLLMetry's indexed
 * `gen_ai.prompt.N.*` / `gen_ai.completion.N.*`, or the older `gen_ai.content.prompt` /
 * `gen_ai.content.completion` events.
 */
function textOf(span: OtlpSpan, limit: number): { prompt?: string; response?: string } {
  const sources: Attributes[] = [span.attributes, ...span.events.map((e) => e.attributes)];
  let prompt: string | undefined;
  let response: string | undefined;
  for (const attributes of sources) {
    const system = systemInstructions(attributes.get('gen_ai.system_instructions'));
    prompt ??=
      storable(conversation(messagesOf(attributes.get('gen_ai.input.messages')), system), limit) ??
      storable(conversation(indexed(attributes, 'gen_ai.prompt')), limit) ??
      storable(conversation(messagesOf(attributes.get('gen_ai.prompt'))), limit);
    response ??=
      storable(answer(messagesOf(attributes.get('gen_ai.output.messages'))), limit) ??
      storable(answer(indexed(attributes, 'gen_ai.completion')), limit) ??
      storable(answer(messagesOf(attributes.get('gen_ai.completion'))), limit);
  }
  return { prompt, response };
}

/**
 * The span's token counts. The conventions count cache reads and writes inside
 * `gen_ai.usage.input_tokens` and reasoning inside `gen_ai.usage.output_tokens`; an
 * instrumentation that counted the cache apart (Anthropic's own usage, copied as it is) shows
 * it by a cache larger than the input, and its parts are added in.
 */
function tokensOf(a: Attributes): Partial<ModelCallFields> {
  const out: Partial<ModelCallFields> = {};
  let input = count(a, 'gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens');
  const read = count(a, 'gen_ai.usage.cache_read.input_tokens');
  const written = count(a, 'gen_ai.usage.cache_creation.input_tokens') ?? 0;
  if (input !== undefined && read !== undefined && read + written > input) input += read + written;
  if (input !== undefined) out.input_tokens = input;
  if (input !== undefined && read !== undefined) out.cached_input_tokens = read;
  const output = count(a, 'gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens');
  const reasoning = count(a, 'gen_ai.usage.reasoning.output_tokens');
  if (output !== undefined) out.output_tokens = output;
  if (output !== undefined && reasoning !== undefined && reasoning <= output)
    out.reasoning_tokens = reasoning;
  return out;
}

function fieldsOf(
  span: OtlpSpan,
  startNs: bigint,
  endNs: bigint | null,
  textLimit: number,
): ModelCallFields {
  const a = span.attributes;
  const fields: ModelCallFields = {
    type: 'model_call',
    timestamp: new Date(Number(startNs / 1_000_000n)).toISOString(),
    error: errorOf(span),
  };
  // Microsecond precision: what a latency in milliseconds can usefully say.
  if (endNs !== null) fields.latency_ms = Number((endNs - startNs) / 1000n) / 1000;
  Object.assign(fields, tokensOf(a));
  const model = text(a.get('gen_ai.response.model')) ?? text(a.get('gen_ai.request.model'));
  if (model !== undefined) fields.model = model;
  const { prompt, response } = textOf(span, textLimit);
  if (prompt !== undefined) fields.prompt = prompt;
  if (response !== undefined) fields.response = response;
  return fields;
}

const WHERE =
  'set it as a span or resource attribute, or as a W3C baggage entry copied onto the span';

/**
 * What one span becomes: a model call, a rejection with its reason, or nothing. Its prompt and
 * response are cut at `textLimit` characters (ROW_TEXT_LIMIT unless an object store keeps them).
 */
export function verdictOf(span: OtlpSpan, textLimit: number = ROW_TEXT_LIMIT): SpanVerdict {
  if (!isGenAiModelCall(span.attributes)) return { kind: 'ignored' };
  const experiment = identity(span, EXPERIMENT_ATTRIBUTE);
  if (experiment === undefined) {
    return { kind: 'rejected', reason: `${EXPERIMENT_ATTRIBUTE} is missing; ${WHERE}` };
  }
  const user = identity(span, USER_ATTRIBUTE);
  if (user === undefined) {
    return { kind: 'rejected', reason: `${USER_ATTRIBUTE} is missing; ${WHERE}` };
  }
  if (span.traceId === null || span.spanId === null) {
    return { kind: 'rejected', reason: 'the span has no valid trace id and span id' };
  }
  if (span.startNs === null) return { kind: 'rejected', reason: 'the span has no start time' };
  if (span.endNs !== null && span.endNs < span.startNs) {
    return { kind: 'rejected', reason: 'the span ends before it starts' };
  }
  return {
    kind: 'model_call',
    eventId: `${span.traceId}-${span.spanId}`,
    experiment,
    user,
    startNs: span.startNs,
    fields: fieldsOf(span, span.startNs, span.endNs, textLimit),
  };
}
