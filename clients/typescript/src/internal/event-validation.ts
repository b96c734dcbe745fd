import type { EventType, TrackPayload } from '../types.ts';
import { MAX_USER_ID_LENGTH } from './constants.ts';

/** The event types the API takes (testdata/wire-limits.json `event.types`). */
export const EVENT_TYPES: ReadonlySet<string> = new Set([
  'exposure',
  'model_call',
  'business_event',
]);

/**
 * The server's rules for an event (docs/wire-format.md), so that no event it would refuse is
 * queued: text without NUL or unpaired surrogates, string lengths, numeric domains, and the
 * free-form JSON limit of `metadata`.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what is refused
const UNSTORABLE = /[\u0000\ud800-\udfff]/u;
const TEXT_LIMITS: ReadonlyArray<[keyof TrackPayload, number, number]> = [
  ['experiment_id', 1, 200],
  ['variant', 1, 64],
  ['business_metric', 1, 128],
  ['model', 0, 200],
  ['error', 0, 4_000],
  ['prompt', 0, 200_000],
  ['response', 0, 200_000],
];
const NUMBER_LIMITS: ReadonlyArray<[keyof TrackPayload, number, number, boolean]> = [
  ['latency_ms', 0, 86_400_000, false],
  ['input_tokens', 0, 1_000_000_000, true],
  ['output_tokens', 0, 1_000_000_000, true],
  ['cached_input_tokens', 0, 1_000_000_000, true],
  ['reasoning_tokens', 0, 1_000_000_000, true],
  ['cost_usd', 0, 1_000_000, false],
  ['value', -1e12, 1e12, false],
];
const METADATA_MAX_DEPTH = 32;
const METADATA_MAX_BYTES = 64 * 1024;

/** No NUL and no unpaired UTF-16 surrogate: text PostgreSQL can store. */
export function isStorableText(text: string): boolean {
  return !UNSTORABLE.test(text);
}

/**
 * Any string buckets (the shared vectors include the empty one), but the API stores only user
 * ids of 1 to 256 characters under the text rule, so no event is made for others. UTF-16 units
 * are counted: never fewer than code points, so an id that passes here passes the API however
 * it counts.
 */
export function isWireUserId(user: string): boolean {
  return user.length >= 1 && user.length <= MAX_USER_ID_LENGTH && isStorableText(user);
}

/** Why `metadata` breaks the free-form JSON limit, or null; iterative, so no depth can overflow. */
function metadataProblem(metadata: unknown): string | null {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    return 'metadata must be an object';
  }
  const stack: Array<[unknown, number]> = [[metadata, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (typeof node === 'string') {
      if (!isStorableText(node)) return 'metadata holds a NUL character or an unpaired surrogate';
    } else if (typeof node === 'number') {
      if (!Number.isFinite(node)) return 'metadata holds a number JSON cannot carry';
    } else if (typeof node === 'object' && node !== null) {
      if (depth > METADATA_MAX_DEPTH)
        return `metadata is nested deeper than ${METADATA_MAX_DEPTH} levels`;
      for (const [key, inner] of Object.entries(node)) {
        if (!isStorableText(key))
          return 'a metadata key holds a NUL character or an unpaired surrogate';
        stack.push([inner, depth + 1]);
      }
    }
  }
  const bytes = new TextEncoder().encode(JSON.stringify(metadata)).length;
  return bytes > METADATA_MAX_BYTES
    ? `metadata is ${bytes} bytes as JSON, more than ${METADATA_MAX_BYTES}`
    : null;
}

/** Why the API would refuse an event with these fields, or null. */
export function wireProblem(payload: TrackPayload): string | null {
  if (typeof payload.user_id !== 'string' || !isWireUserId(payload.user_id)) {
    return `user_id must be 1 to ${MAX_USER_ID_LENGTH} characters without NUL or unpaired surrogates`;
  }
  for (const [field, min, max] of TEXT_LIMITS) {
    const value = payload[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' || value.length < min || value.length > max) {
      return `${field} must be a string of ${min} to ${max} characters`;
    }
    if (!isStorableText(value)) return `${field} holds a NUL character or an unpaired surrogate`;
  }
  for (const [field, min, max, integer] of NUMBER_LIMITS) {
    const value = payload[field];
    if (value === undefined) continue;
    if (
      typeof value !== 'number' ||
      !Number.isFinite(value) ||
      value < min ||
      value > max ||
      (integer && !Number.isInteger(value))
    ) {
      return `${field} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`;
    }
  }
  const parts = tokenPartsProblem(payload);
  if (parts !== null) return parts;
  if (payload.metadata !== undefined) return metadataProblem(payload.metadata);
  return null;
}

/** A token part is counted inside its total: it needs the total and cannot exceed it. */
function tokenPartsProblem(payload: TrackPayload): string | null {
  const pairs = [
    ['cached_input_tokens', payload.cached_input_tokens, 'input_tokens', payload.input_tokens],
    ['reasoning_tokens', payload.reasoning_tokens, 'output_tokens', payload.output_tokens],
  ] as const;
  for (const [part, count, whole, total] of pairs) {
    if (count === undefined) continue;
    if (total === undefined || count > total) return `${part} must be a part of ${whole}`;
  }
  return null;
}

/**
 * Why the API would refuse this event, or null. Checked at `track` time because a refusal
 * found at flush time would cost the whole batch a round trip and the caller's mistake a log
 * line far from its cause.
 */
export function trackProblem(event: unknown, payload: TrackPayload): string | null {
  if (typeof event !== 'string' || !EVENT_TYPES.has(event)) {
    return `unknown event type ${JSON.stringify(event)}`;
  }
  if (typeof payload !== 'object' || payload === null) return 'payload is not an object';
  if (typeof payload.experiment_id !== 'string' || payload.experiment_id === '') {
    return 'experiment_id is missing';
  }
  if ((event as EventType) === 'business_event') {
    if (typeof payload.business_metric !== 'string' || payload.business_metric === '') {
      return 'business_metric is missing';
    }
    if (typeof payload.value !== 'number' || !Number.isFinite(payload.value)) {
      return 'value must be a finite number';
    }
  }
  return wireProblem(payload);
}
