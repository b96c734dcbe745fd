import type { ProviderReader } from './model-call-measure.ts';
import { ANTHROPIC_METHODS, anthropicReader } from './wrap-anthropic.ts';
import { OPENAI_METHODS, openAIReader } from './wrap-openai.ts';

/** Runs one intercepted provider call; `invoke` makes the real call. */
export type CallHook = (reader: ProviderReader, params: unknown, invoke: () => unknown) => unknown;

const READERS = new Map<string, ProviderReader>([
  ...OPENAI_METHODS.map((path) => [path, openAIReader] as const),
  ...ANTHROPIC_METHODS.map((path) => [path, anthropicReader] as const),
]);

/** Every object on the way to an intercepted method: `chat`, `chat.completions`, ... */
const PARENTS = new Set(
  [...READERS.keys()].flatMap((path) => {
    const parts = path.split('.');
    return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join('.'));
  }),
);

/** Both readers together, for `interceptModelCall`, where the provider is not known. */
export const ANY_PROVIDER: readonly ProviderReader[] = [openAIReader, anthropicReader];

/**
 * A view of an OpenAI or Anthropic client whose model-call methods go through `hook`. The
 * client itself is not modified, so unwrapped uses elsewhere in the host stay as they were.
 */
export function wrapProviderClient<T extends object>(client: T, hook: CallHook): T {
  const root: Root = { client, view: client };
  root.view = proxyAt(client, '', hook, root);
  return root.view as T;
}

interface Root {
  client: object;
  view: object;
}

function proxyAt<T extends object>(target: T, path: string, hook: CallHook, root: Root): T {
  // Repeated property reads return the same wrapper, as they would on the real client.
  const made = new Map<string, { source: unknown; view: unknown }>();
  const remember = (key: string, source: unknown, build: () => unknown) => {
    const hit = made.get(key);
    if (hit !== undefined && hit.source === source) return hit.view;
    const view = build();
    made.set(key, { source, view });
    return view;
  };
  return new Proxy(target, {
    get(obj, prop) {
      const value: unknown = Reflect.get(obj, prop);
      if (typeof prop !== 'string') return value;
      // Resources reach the client through `this._client`; SDK helpers (OpenAI's `stream()`,
      // `parse()`, `runTools()`) call `this._client.chat.completions.create`, which must be ours.
      if (value === root.client && path !== '') return root.view;
      const at = path === '' ? prop : `${path}.${prop}`;
      const reader = READERS.get(at);
      if (reader !== undefined && typeof value === 'function') {
        return remember(
          at,
          value,
          () =>
            // `this` is the resource view, so an SDK helper such as `messages.stream()` that calls
            // `this.create` is intercepted too.
            function intercepted(this: unknown, ...args: unknown[]) {
              return hook(reader, args[0], () => Reflect.apply(value, this, args));
            },
        );
      }
      if (PARENTS.has(at) && typeof value === 'object' && value !== null) {
        return remember(at, value, () => proxyAt(value, at, hook, root));
      }
      // The client classes keep state in #private fields, reachable only with the real `this`.
      if (path === '' && typeof value === 'function' && prop !== 'constructor') {
        return remember(at, value, () => (value as (...a: unknown[]) => unknown).bind(obj));
      }
      return value;
    },
  });
}
