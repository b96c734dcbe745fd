import type { PromptGetOptions, PromptMessage, PromptsApi, ResolvedPrompt } from '../prompts.ts';
import { renderPrompt } from '../prompts.ts';
import type { ConfigDocument, WirePrompt, WirePromptVersion } from './wire.ts';

/**
 * The prompts of one config, indexed for `prompts.get`: each prompt's entry, and the experiment
 * that covers it, the first running one in config order with a variant referencing it.
 */
export interface PromptIndex {
  readonly prompts: ReadonlyMap<string, WirePrompt>;
  /** Prompt name → the covering experiment's id and the version each of its variants references. */
  readonly covering: ReadonlyMap<
    string,
    { experiment: string; name: string; versions: Map<string, number> }
  >;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function promptIndexOf(doc: ConfigDocument): PromptIndex {
  const prompts = new Map<string, WirePrompt>();
  if (isObject(doc.prompts)) {
    for (const [name, p] of Object.entries(doc.prompts)) {
      if (isObject(p) && isObject(p.labels) && isObject(p.versions)) prompts.set(name, p);
    }
  }
  const covering = new Map<
    string,
    { experiment: string; name: string; versions: Map<string, number> }
  >();
  for (const e of doc.experiments) {
    if (!isObject(e) || (e.status ?? 'running') !== 'running' || !Array.isArray(e.variants))
      continue;
    for (const v of e.variants) {
      const ref = isObject(v) ? v.prompt_ref : undefined;
      if (!isObject(ref) || typeof ref.name !== 'string' || typeof ref.version !== 'number')
        continue;
      if (covering.has(ref.name) && covering.get(ref.name)?.experiment !== e.id) continue;
      const entry = covering.get(ref.name) ?? {
        experiment: e.id,
        name: e.name,
        versions: new Map(),
      };
      entry.versions.set(v.key, ref.version);
      covering.set(ref.name, entry);
    }
  }
  return { prompts, covering };
}

export interface ResolverDeps {
  /** The current config's index; null before the first config. */
  index(): PromptIndex | null;
  /** `assign`, with its exposure. */
  assign(
    experiment: string,
    user: string,
    attributes: PromptGetOptions['attributes'],
  ): string | null;
  warnOnce(key: string, message: string): void;
}

function servedVersion(
  name: string,
  body: WirePromptVersion,
  version: number,
  vars: Record<string, string>,
  from: Pick<ResolvedPrompt, 'source' | 'experiment' | 'variant'>,
): ResolvedPrompt {
  return {
    name,
    ...from,
    version,
    text: typeof body.text === 'string' ? renderPrompt(body.text, vars) : null,
    messages: Array.isArray(body.messages) ? renderedMessages(body.messages, vars) : null,
    variables: Array.isArray(body.variables) ? [...body.variables] : [],
    modelSettings: isObject(body.model_settings) ? { ...body.model_settings } : {},
  };
}

const renderedMessages = (messages: PromptMessage[], vars: Record<string, string>) =>
  messages.map((m) => ({ role: m.role, content: renderPrompt(m.content, vars) }));

function defaultAnswer(
  name: string,
  value: string | PromptMessage[],
  vars: Record<string, string>,
): ResolvedPrompt {
  const text = typeof value === 'string' ? renderPrompt(value, vars) : null;
  return {
    name,
    source: 'default',
    version: null,
    experiment: null,
    variant: null,
    text,
    messages: Array.isArray(value) ? renderedMessages(value, vars) : null,
    variables: [],
    modelSettings: {},
  };
}

/** The resolution of docs/wire-format.md#prompts. */
function resolvePromptFor(
  deps: ResolverDeps,
  name: string,
  user: string,
  def: string | PromptMessage[],
  options: PromptGetOptions,
): ResolvedPrompt {
  const vars = options.variables ?? {};
  const index = deps.index();
  if (index === null) return defaultAnswer(name, def, vars);
  const prompt = index.prompts.get(name);
  const covering = index.covering.get(name);
  if (covering !== undefined) {
    const variant = deps.assign(covering.experiment, user, options.attributes);
    const version = variant === null ? undefined : covering.versions.get(variant);
    const body = version === undefined ? undefined : prompt?.versions[String(version)];
    if (body !== undefined && version !== undefined)
      return servedVersion(name, body, version, vars, {
        source: 'experiment',
        experiment: covering.name,
        variant,
      });
  }
  const version = prompt?.labels[options.label ?? 'production'];
  const body = typeof version === 'number' ? prompt?.versions[String(version)] : undefined;
  if (body === undefined || typeof version !== 'number') return defaultAnswer(name, def, vars);
  return servedVersion(name, body, version, vars, {
    source: 'label',
    experiment: null,
    variant: null,
  });
}

/** `client.prompts`: never throws; a failure answers the default and is logged once. */
export function promptsApi(deps: ResolverDeps): PromptsApi {
  return {
    get(name, user, defaultPrompt, options = {}) {
      try {
        return resolvePromptFor(deps, name, user, defaultPrompt, options);
      } catch (err) {
        deps.warnOnce('prompts.get', `prompts.get failed, returning the default: ${String(err)}`);
        try {
          return defaultAnswer(name, defaultPrompt, {});
        } catch {
          return defaultAnswer(String(name), '', {});
        }
      }
    },
  };
}
