import { describeError } from './model-call.ts';
import {
  appendResponse,
  asObject,
  type CallMeasure,
  type Json,
  setModel,
  setPrompt,
  setResponse,
  setTokens,
} from './model-call-measure.ts';

/**
 * Reads the AI SDK's language-model shapes (the provider specification, versions 2 to 4, which
 * every provider package implements) into a model call's measure. Unknown shapes are skipped.
 */

/** The request: the model the caller asked for and the prompt as `role: text` lines. */
export function readCall(params: unknown, model: unknown, into: CallMeasure): void {
  setModel(into, asObject(model)?.modelId);
  setPrompt(into, promptText(asObject(params)?.prompt));
}

/** A `doGenerate` result: the answered model, usage, text and cost. */
export function readGenerateResult(result: unknown, into: CallMeasure): void {
  const r = asObject(result);
  if (r === null) return;
  setModel(into, asObject(r.response)?.modelId);
  readUsage(r.usage, into);
  readCost(r.providerMetadata, into);
  if (Array.isArray(r.content)) {
    setResponse(
      into,
      r.content
        .map((part) => {
          const p = asObject(part);
          return p?.type === 'text' && typeof p.text === 'string' ? p.text : '';
        })
        .join(''),
    );
  }
}

/** Part types that carry the model's first output: the time to first token ends at one of them. */
const FIRST_TOKEN_PARTS = new Set([
  'text-delta',
  'reasoning-delta',
  'tool-input-delta',
  'tool-call',
  'file',
]);

/** One part of a `doStream` stream; returns true when the part is model output (a token). */
export function readStreamPart(part: unknown, into: CallMeasure): boolean {
  const p = asObject(part);
  if (p === null) return false;
  switch (p.type) {
    case 'response-metadata':
      setModel(into, p.modelId);
      break;
    case 'text-delta':
      // `delta` since AI SDK 5; `textDelta` before.
      appendResponse(into, p.delta ?? p.textDelta);
      break;
    case 'finish':
      readUsage(p.usage, into);
      readCost(p.providerMetadata, into);
      break;
    case 'error':
      into.error = describeError(p.error);
      break;
  }
  return typeof p.type === 'string' && FIRST_TOKEN_PARTS.has(p.type);
}

/**
 * Usage counts: `{ inputTokens: { total, cacheRead }, outputTokens: { total, reasoning } }`
 * since specification 3; plain numbers in specification 2, with `cachedInputTokens` and
 * `reasoningTokens` beside them. The parts are counted in the totals either way.
 */
function readUsage(usage: unknown, into: CallMeasure): void {
  const u = asObject(usage);
  if (u === null) return;
  const input = asObject(u.inputTokens);
  const output = asObject(u.outputTokens);
  setTokens(into, {
    input: input?.total ?? u.inputTokens,
    output: output?.total ?? u.outputTokens,
    cached: input?.cacheRead ?? u.cachedInputTokens,
    reasoning: output?.reasoning ?? u.reasoningTokens,
  });
}

/**
 * The cost, where a provider reports one in its metadata: the AI Gateway's `gateway.cost` (a
 * decimal string), OpenRouter's `openrouter.usage.cost` (a number).
 */
function readCost(providerMetadata: unknown, into: CallMeasure): void {
  const all = asObject(providerMetadata);
  if (all === null) return;
  for (const value of Object.values(all)) {
    const meta = asObject(value);
    if (meta === null) continue;
    const raw = meta.cost ?? asObject(meta.usage)?.cost;
    const cost = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
    if (typeof cost === 'number' && Number.isFinite(cost) && cost >= 0) {
      into.cost_usd = cost;
      return;
    }
  }
}

/** `role: text` lines of a prompt: text parts, tool results as their output; files skipped. */
function promptText(prompt: unknown): string {
  if (!Array.isArray(prompt)) return '';
  const lines: string[] = [];
  for (const message of prompt) {
    const m = asObject(message);
    if (m === null) continue;
    const text =
      typeof m.content === 'string'
        ? m.content
        : Array.isArray(m.content)
          ? m.content
              .map((part) => partText(asObject(part)))
              .filter((t) => t !== '')
              .join('\n')
          : '';
    if (text !== '') lines.push(`${typeof m.role === 'string' ? m.role : 'user'}: ${text}`);
  }
  return lines.join('\n');
}

function partText(part: Json | null): string {
  if (part === null) return '';
  if (part.type === 'text' && typeof part.text === 'string') return part.text;
  if (part.type !== 'tool-result') return '';
  // `output: { type: 'text' | 'json' | 'error-text' | ..., value }` since AI SDK 5; `result` before.
  const output = asObject(part.output);
  const value = output !== null ? output.value : part.result;
  if (typeof value === 'string') return value;
  return value === undefined ? '' : (JSON.stringify(value) ?? '');
}
