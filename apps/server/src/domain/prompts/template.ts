import type { PromptTemplate, PromptVersionInput } from '../../schemas/prompt.ts';
import { DomainError } from '../outcomes.ts';

/**
 * A placeholder is `{{name}}`, spaces allowed inside the braces; the clients render by the same
 * pattern (docs/wire-format.md#rendering), so what the server calls a placeholder is what they fill.
 */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** The variable names a text's placeholders use, in order of first use. */
export function placeholdersOf(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1]!))];
}

interface FieldError {
  pointer: string;
  detail: string;
}

function refused(errors: FieldError[]): DomainError {
  const first = errors[0]!;
  return new DomainError(
    'config-invalid',
    `${errors.length} invalid field${errors.length === 1 ? '' : 's'} in the body; first: ${first.pointer} ${first.detail}`,
    { errors },
  );
}

/** The texts of a template with the pointer each came from. */
function textsOf(template: PromptTemplate): Array<{ pointer: string; text: string }> {
  if (template.type === 'text') return [{ pointer: '#/text', text: template.text }];
  return template.messages.map((m, i) => ({ pointer: `#/messages/${i}/content`, text: m.content }));
}

/**
 * The stored template of a new version: exactly one of `text` and `messages`, and every
 * placeholder declared in `variables` (an undeclared one is most often a typo, which would
 * otherwise reach users as literal braces).
 */
export function templateOf(input: PromptVersionInput): PromptTemplate {
  if ((input.text === undefined) === (input.messages === undefined)) {
    throw refused([{ pointer: '#/text', detail: 'give exactly one of text and messages' }]);
  }
  const template: PromptTemplate =
    input.text !== undefined
      ? { type: 'text', text: input.text }
      : { type: 'chat', messages: input.messages! };
  const declared = new Set(input.variables ?? []);
  const errors = textsOf(template).flatMap(({ pointer, text }) =>
    placeholdersOf(text)
      .filter((name) => !declared.has(name))
      .map((name) => ({
        pointer,
        detail: `uses {{${name}}}, which is not declared in variables`,
      })),
  );
  if (errors.length > 0) throw refused(errors);
  return template;
}
