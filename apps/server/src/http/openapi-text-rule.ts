import { STORABLE_TEXT_PATTERN } from '@arbiter/contract';

/** The NUL half of the text rule, in a form every regex engine compiles. */
const NO_NUL_PATTERN = '^[^\\u0000]*$';

/**
 * The text rule's pattern names a surrogate range, which Ajv (with the `u` flag) reads but
 * Rust's and Python's regex engines cannot compile: schemathesis and many client generators drop
 * such a pattern whole, and with it the NUL rule. The document therefore states the rule twice:
 * the NUL half as the node's own pattern, the full rule beside it in `allOf`. Same constraint,
 * readable by more tools.
 */
export function restateTextRule(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) restateTextRule(item);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const schema = node as Record<string, unknown>;
  for (const value of Object.values(schema)) restateTextRule(value);
  if (schema.pattern === STORABLE_TEXT_PATTERN) {
    schema.pattern = NO_NUL_PATTERN;
    schema.allOf = [...((schema.allOf as unknown[]) ?? []), { pattern: STORABLE_TEXT_PATTERN }];
  }
}
