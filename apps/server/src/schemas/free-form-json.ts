import { FREE_FORM_JSON_MAX_BYTES, FREE_FORM_JSON_MAX_DEPTH } from '@arbiter/contract';
import { Type } from 'typebox';
import { isStorableText, TEXT_RULE_MESSAGE } from './text.ts';

const utf8 = new TextEncoder();

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

/**
 * Why `value` breaks the limit, and where inside it, or null. Walks iteratively and
 * stops one level past the limit, so no nesting depth can exhaust the stack; the size is then
 * measured on a value known to be shallow.
 */
export function freeFormJsonProblem(value: unknown): FreeFormJsonProblem | null {
  const stack: Array<{ node: unknown; depth: number; path: string }> = [
    { node: value, depth: 1, path: '' },
  ];
  while (stack.length > 0) {
    const { node, depth, path } = stack.pop() as (typeof stack)[number];
    if (typeof node === 'string') {
      if (!isStorableText(node)) return { pointer: path, detail: TEXT_RULE_MESSAGE };
      continue;
    }
    if (typeof node !== 'object' || node === null) continue;
    if (depth > FREE_FORM_JSON_MAX_DEPTH) {
      return { pointer: path, detail: `nested deeper than ${FREE_FORM_JSON_MAX_DEPTH} levels` };
    }
    for (const [key, inner] of Object.entries(node)) {
      const at = `${path}/${escapePointer(key)}`;
      if (!isStorableText(key)) return { pointer: at, detail: TEXT_RULE_MESSAGE };
      stack.push({ node: inner, depth: depth + 1, path: at });
    }
  }
  const bytes = utf8.encode(JSON.stringify(value) ?? '').length;
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
