import type { Attributes } from '../types.ts';
import { wireProblem } from './event-validation.ts';

/**
 * With `exposureAttributes: true`, an exposure carries the attributes its call passed as
 * `metadata.attributes` (docs/wire-format.md#exposure-attributes). They are taken as JSON
 * (`JSON.stringify`: `toJSON` honoured, `undefined` members left out) and copied, so a later
 * change to the caller's object does not reach the queued event. Attributes that are not JSON
 * (a BigInt, a function or symbol value, a number that is not finite, a cycle, a getter that
 * throws) or that would break the free-form JSON limit of `metadata` (32 levels, 64 KiB, the
 * text rule) are left out and the exposure goes without them: the server never refuses it.
 */
export type ExposureMetadata =
  | { metadata: { attributes: Record<string, unknown> } }
  | { problem: string };

export function exposureMetadata(attributes: Attributes): ExposureMetadata {
  let copy: unknown;
  try {
    const text = JSON.stringify(attributes, strictJson);
    copy = text === undefined ? undefined : JSON.parse(text);
  } catch (err) {
    return { problem: `they are not JSON (${err instanceof Error ? err.message : String(err)})` };
  }
  if (typeof copy !== 'object' || copy === null || Array.isArray(copy)) {
    return { problem: 'they are not a JSON object' };
  }
  const metadata = { attributes: copy as Record<string, unknown> };
  // The user id is only a placeholder: the metadata is what is checked.
  const problem = wireProblem({ experiment_id: 'x', user_id: 'x', metadata });
  return problem === null ? { metadata } : { problem };
}

/** `JSON.stringify` turns these into null or leaves them out; the other clients refuse them. */
function strictJson(_key: string, value: unknown): unknown {
  if (typeof value === 'number' && !Number.isFinite(value)) {
    throw new TypeError(`${value} is not a JSON number`);
  }
  if (typeof value === 'function' || typeof value === 'symbol') {
    throw new TypeError(`a ${typeof value} is not a JSON value`);
  }
  return value;
}
