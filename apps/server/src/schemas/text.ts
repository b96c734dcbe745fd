import { STORABLE_TEXT_PATTERN } from '@arbiter/contract';
import { type TSchemaOptions, Type } from 'typebox';

/**
 * The one text rule of every route (the contract's STORABLE_TEXT_PATTERN), refused at the door.
 * Written as a JSON Schema `pattern` so the OpenAPI document says it and any generator or
 * validator reading it agrees: Ajv compiles patterns with the `u` flag, like the contract's.
 */
export const TEXT_RULE_MESSAGE = 'contains a NUL character or an unpaired surrogate';

const STORABLE = new RegExp(STORABLE_TEXT_PATTERN, 'u');

export function isStorableText(value: string): boolean {
  return STORABLE.test(value);
}

type StringOptions = TSchemaOptions & {
  minLength?: number;
  maxLength?: number;
  description?: string;
};

/** A string under the text rule; `minLength`/`maxLength` as usual. */
export function Text(options: StringOptions = {}) {
  return Type.String({ ...options, pattern: STORABLE_TEXT_PATTERN });
}

/**
 * A string under the text rule and a pattern of its own (e.g. no `:` in a salt): both must
 * hold, and each failure is reported with its own message.
 */
export function TextMatching(pattern: string, options: StringOptions = {}) {
  const { description, ...limits } = options;
  return Type.Intersect([Text(limits), Type.String({ pattern })], {
    ...(description === undefined ? {} : { description }),
  });
}
