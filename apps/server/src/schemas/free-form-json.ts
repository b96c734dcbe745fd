import { FREE_FORM_JSON_MAX_BYTES, FREE_FORM_JSON_MAX_DEPTH } from '@arbiter/contract';
import { Type } from 'typebox';
import { isStorableText, TEXT_RULE_MESSAGE } from './text.ts';

/*
 * The contract's limit of every free-form JSON field (event metadata, experiment variables,
 * import rows' metadata): FREE_FORM_JSON_MAX_DEPTH levels of nesting, FREE_FORM_JSON_MAX_BYTES
 * as compact JSON in UTF-8, and the text rule on every key and string inside.
 */

/** The Ajv keyword that applies the limit; unknown to other tools, which ignore `x-` keywords. */
export const FREE_FORM_JSON_KEYWORD = 'x-free-form-json';

const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

export interface FreeFormJsonProblem {
  /** JSON pointer inside the value ('' for the value itself). */
  pointer: string;
  detail: string;
}

/** Where a walked value sits: its key and its parent's place, turned into a pointer only on failure. */
interface Place {
  key: string;
  parent: Place | null;
}

function pointerOf(place: Place | null): string {
  let pointer = '';
  for (let at = place; at !== null; at = at.parent) pointer = `/${escapePointer(at.key)}${pointer}`;
  return pointer;
}

/*
 * Most values are far under the size limit, so the walk adds up a bound of their size as JSON
 * in UTF-8 and serialises only a value whose bound could pass the limit: a UTF-16 unit is at
 * most 6 bytes (a `\uXXXX` escape), a number at most 24 characters, and a value with a
 * `toJSON` (a Date) is measured by serialising it.
 */
const MAX_BYTES_A_UNIT = 6;
const MAX_NUMBER_CHARS = 24;
const stringBound = (text: string) => text.length * MAX_BYTES_A_UNIT + 2;
const hasToJson = (node: object) => typeof (node as { toJSON?: unknown }).toJSON === 'function';

/**
 * Why `value` breaks the limit, and where inside it, or null. Walks iteratively and
 * stops one level past the limit, so no nesting depth can exhaust the stack; the size is then
 * measured on a value known to be shallow. Called on every assign and OFREP evaluation with
 * attributes, so the pointer is spelt only for a failure.
 */
export function freeFormJsonProblem(value: unknown): FreeFormJsonProblem | null {
  const stack: Array<{ node: unknown; depth: number; place: Place | null }> = [
    { node: value, depth: 1, place: null },
  ];
  let bound = 0;
  while (stack.length > 0) {
    const { node, depth, place } = stack.pop() as (typeof stack)[number];
    if (typeof node === 'string') {
      if (!isStorableText(node)) return { pointer: pointerOf(place), detail: TEXT_RULE_MESSAGE };
      bound += stringBound(node) + 1;
      continue;
    }
    if (typeof node !== 'object' || node === null) {
      bound += MAX_NUMBER_CHARS + 1;
      continue;
    }
    if (depth > FREE_FORM_JSON_MAX_DEPTH) {
      return {
        pointer: pointerOf(place),
        detail: `nested deeper than ${FREE_FORM_JSON_MAX_DEPTH} levels`,
      };
    }
    bound += hasToJson(node) ? Number.POSITIVE_INFINITY : 3;
    for (const key of Object.keys(node)) {
      const at = { key, parent: place };
      if (!isStorableText(key)) return { pointer: pointerOf(at), detail: TEXT_RULE_MESSAGE };
      bound += stringBound(key) + 1;
      stack.push({ node: (node as Record<string, unknown>)[key], depth: depth + 1, place: at });
    }
  }
  if (bound <= FREE_FORM_JSON_MAX_BYTES) return null;
  const bytes = Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
  if (bytes > FREE_FORM_JSON_MAX_BYTES) {
    return { pointer: '', detail: `${bytes} bytes as JSON, more than ${FREE_FORM_JSON_MAX_BYTES}` };
  }
  return null;
}

/** A free-form JSON object under the limit. */
export function FreeFormObject(description?: string) {
  return Type.Record(Type.String(), Type.Unknown(), {
    [FREE_FORM_JSON_KEYWORD]: true,
    description: `${description ? `${description}. ` : ''}Free-form JSON: at most ${FREE_FORM_JSON_MAX_DEPTH} levels deep and ${FREE_FORM_JSON_MAX_BYTES / 1024} KiB as JSON; no NUL or unpaired surrogate in keys or strings`,
  });
}
