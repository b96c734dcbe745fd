import type { PreparedAttributes } from './prepared-attributes.ts';
import type { Attributes } from './types.ts';

/** One message of a chat prompt. */
export interface PromptMessage {
  role: string;
  content: string;
}

/** What `prompts.get` takes beside the name, the user and the default. */
export interface PromptGetOptions {
  /** The label read when no running experiment covers the prompt; default `production`. */
  label?: string;
  /** Values of the template's `{{name}}` placeholders; a placeholder without one stays as it is. */
  variables?: Record<string, string>;
  /** What a covering experiment's targeting reads, as for `assign`. */
  attributes?: Attributes | PreparedAttributes;
}

/** A prompt as `prompts.get` resolved it, rendered with the caller's variables. */
export interface ResolvedPrompt {
  name: string;
  /** `experiment`: the user's variant's version; `label`: the label's version; `default`: the caller's. */
  source: 'experiment' | 'label' | 'default';
  /** The version served; null for the default. */
  version: number | null;
  /** The covering experiment's name and the user's variant, when `source` is `experiment`. */
  experiment: string | null;
  variant: string | null;
  /** The rendered text of a text version (or of a text default); null for a chat version. */
  text: string | null;
  /** The rendered messages of a chat version (or of a chat default); null for a text. */
  messages: PromptMessage[] | null;
  /** The version's declared variables ([] for the default). */
  variables: string[];
  /** The version's model settings as written ({} when none). */
  modelSettings: Record<string, unknown>;
}

/** `client.prompts`: stored prompts by name, from the polled config. */
export interface PromptsApi {
  /**
   * The prompt `name` for `user`: the user's variant's version when a running experiment covers
   * it (sending that experiment's exposure, as `assign` does), else the version under
   * `options.label` (default `production`), else `defaultPrompt`. From memory; never throws.
   */
  get(
    name: string,
    user: string,
    defaultPrompt: string | PromptMessage[],
    options?: PromptGetOptions,
  ): ResolvedPrompt;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/**
 * Renders a template (docs/wire-format.md#rendering): each `{{name}}` (spaces allowed inside the
 * braces) whose name has a string value in `variables` becomes that value; every other
 * placeholder stays as it is; nothing is escaped; one pass, so a value is never rendered again.
 */
export function renderPrompt(template: string, variables: Record<string, string> = {}): string {
  return template.replace(PLACEHOLDER, (whole, name: string) => {
    const value = Object.hasOwn(variables, name) ? variables[name] : undefined;
    return typeof value === 'string' ? value : whole;
  });
}
