/**
 * Writes testdata/prompts.json: how `prompts.get(name, user, default)` resolves a prompt from
 * the config (a running experiment covering it, else a label, else the default) and how a
 * template renders, for the TypeScript, Python and Java clients to read in place. The variant
 * of a covered user comes from the reference assign (reference-assign.ts); rendering from the
 * reference renderer below (docs/wire-format.md#rendering).
 *
 *   npx tsx packages/conditions/scripts/write-prompts.ts
 */
import { writeFileSync } from 'node:fs';
import { type Experiment, referenceAssign, type World } from './reference-assign.ts';
import { twoArmExperiment } from './vectors-file.ts';

interface PromptVersion {
  text?: string;
  messages?: Array<{ role: string; content: string }>;
  variables: string[];
  model_settings?: Record<string, unknown>;
}
interface Prompt {
  labels: Record<string, number>;
  versions: Record<string, PromptVersion>;
}
type Ref = { name: string; version: number };
type Variant = Experiment['variants'][number] & { prompt_ref?: Ref };

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** The reference renderer: a placeholder with a string value is replaced, others stay; one pass. */
function render(template: string, variables: Record<string, unknown>): string {
  return template.replace(PLACEHOLDER, (whole, name: string) => {
    const value = Object.hasOwn(variables, name) ? variables[name] : undefined;
    return typeof value === 'string' ? value : whole;
  });
}

const text = (t: string, variables: string[] = []): PromptVersion => ({ text: t, variables });

const PROMPTS: Record<string, Prompt> = {
  plain: {
    labels: { production: 1, staging: 2 },
    versions: {
      '1': { ...text('Hello {{customer}}.', ['customer']), model_settings: { model: 'm-1' } },
      '2': text('Hi {{ customer }}!', ['customer']),
    },
  },
  tested: {
    labels: { production: 1 },
    versions: { '1': text('tested v1'), '2': text('tested v2') },
  },
  targeted: {
    labels: { production: 1 },
    versions: { '1': text('targeted v1'), '2': text('targeted v2') },
  },
  shipped: {
    labels: { production: 2 },
    versions: { '1': text('shipped v1'), '2': text('shipped v2') },
  },
  mixed: { labels: { production: 1 }, versions: { '1': text('mixed v1'), '2': text('mixed v2') } },
  chat: {
    labels: { production: 1 },
    versions: {
      '1': {
        messages: [
          { role: 'system', content: 'You help {{customer}}.' },
          { role: 'user', content: '{{question}}' },
        ],
        variables: ['customer', 'question'],
        model_settings: { temperature: 0.2 },
      },
    },
  },
  unlabelled: { labels: {}, versions: {} },
};

const ref = (name: string, version: number): Variant => ({
  key: version === 1 ? 'control' : 'treatment',
  ...(PROMPTS[name]?.versions[String(version)]?.text === undefined
    ? {}
    : { prompt: PROMPTS[name]?.versions[String(version)]?.text }),
  prompt_ref: { name, version },
});

const experiments: Array<Experiment & { variants: Variant[] }> = [];
function add(name: string, variants: Variant[], extra: Partial<Experiment> = {}): void {
  experiments.push({
    ...twoArmExperiment(0xd000 + experiments.length + 1, name, variants),
    variants,
    ...extra,
  });
}
add('on-tested', [ref('tested', 1), ref('tested', 2)]);
add('on-targeted', [ref('targeted', 1), ref('targeted', 2)], { targeting: { plan: 'pro' } });
add('on-shipped', [ref('shipped', 1), ref('shipped', 2)], {
  status: 'stopped',
  served_variant: 'treatment',
});
add('on-mixed', [{ key: 'control', prompt: 'inline control' }, ref('mixed', 2)]);

const WORLD: World = { saved_groups: {}, layers: [], holdouts: [] };

interface Expected {
  source: 'experiment' | 'label' | 'default';
  version: number | null;
  experiment: string | null;
  variant: string | null;
  text: string | null;
  messages: Array<{ role: string; content: string }> | null;
  /** Whether the call sends the covering experiment's exposure (once per user and day). */
  exposure: boolean;
}

/** The reference resolution of docs/wire-format.md#prompts. */
function resolve(
  name: string,
  user: string,
  label: string,
  attributes: Record<string, unknown>,
  vars: Record<string, unknown>,
  fallback: string,
): Expected {
  const prompt = PROMPTS[name];
  const found = (
    source: Expected['source'],
    version: number,
    e: string | null,
    v: string | null,
    exposure: boolean,
  ): Expected | null => {
    const body = prompt?.versions[String(version)];
    if (body === undefined) return null;
    return {
      source,
      version,
      experiment: e,
      variant: v,
      text: body.text === undefined ? null : render(body.text, vars),
      messages:
        body.messages === undefined
          ? null
          : body.messages.map((m) => ({ role: m.role, content: render(m.content, vars) })),
      exposure,
    };
  };
  const covering = experiments.find(
    (e) =>
      (e.status ?? 'running') === 'running' && e.variants.some((v) => v.prompt_ref?.name === name),
  );
  let exposure = false;
  if (covering !== undefined) {
    const assigned = referenceAssign(WORLD, covering, user, attributes);
    exposure = assigned.exposures.some((x) => x.experiment_id === covering.id);
    const variant = covering.variants.find((v) => v.key === assigned.variant);
    if (variant?.prompt_ref?.name === name) {
      const got = found(
        'experiment',
        variant.prompt_ref.version,
        covering.name,
        variant.key,
        exposure,
      );
      if (got !== null) return got;
    }
  }
  const version = prompt?.labels[label];
  const got = version === undefined ? null : found('label', version, null, null, exposure);
  return (
    got ?? {
      source: 'default',
      version: null,
      experiment: null,
      variant: null,
      text: render(fallback, vars),
      messages: null,
      exposure,
    }
  );
}

const USERS = Array.from({ length: 12 }, (_, i) => `user-${i}`);
const cases: Array<{
  name: string;
  prompt: string;
  user: string;
  label?: string;
  attributes?: Record<string, unknown>;
  variables?: Record<string, unknown>;
  default: string;
  expected: Expected;
}> = [];
function some(
  prompt: string,
  opts: {
    label?: string;
    attributes?: Record<string, unknown>;
    variables?: Record<string, unknown>;
  } = {},
) {
  for (const user of USERS) {
    const expected = resolve(
      prompt,
      user,
      opts.label ?? 'production',
      opts.attributes ?? {},
      opts.variables ?? {},
      'the default',
    );
    cases.push({
      name: `${prompt} ${opts.label ?? ''} ${user}`.replace(/\s+/g, ' '),
      prompt,
      user,
      ...opts,
      default: 'the default',
      expected,
    });
  }
}
some('plain', { variables: { customer: 'Ada' } });
some('plain', { label: 'staging', variables: { customer: 'Ada' } });
some('plain', { label: 'missing' });
some('tested');
some('targeted');
some('targeted', { attributes: { plan: 'pro' } });
some('shipped');
some('mixed');
some('chat', { variables: { customer: 'Ada', question: 'Why {{customer}}?' } });
some('unlabelled');
some('nowhere');

const renderCases = [
  ['Hello {{name}}.', { name: 'Ada' }, 'Hello Ada.'],
  ['{{ name }} and {{name}}', { name: 'Ada' }, 'Ada and Ada'],
  ['{{unknown}} stays', { name: 'Ada' }, '{{unknown}} stays'],
  ['{{name}}', { name: '{{name}}' }, '{{name}}'],
  ['{{a}}{{b}}', { a: '{{b}}', b: 'B' }, '{{b}}B'],
  ['no escaping: {{html}}', { html: '<b>&amp;</b>' }, 'no escaping: <b>&amp;</b>'],
  ['{{count}} left: not a string', { count: 3 }, '{{count}} left: not a string'],
  ['{{ spaced  }}', { spaced: 'ok' }, 'ok'],
  ['{{1bad}} {{bad-name}} {name} {{{name}}}', { name: 'x' }, '{{1bad}} {{bad-name}} {name} {x}'],
  ['{{na me}}', { 'na me': 'x' }, '{{na me}}'],
  ['unicode {{wer}}: é 😀', { wer: 'Zoë 😀' }, 'unicode Zoë 😀: é 😀'],
  ['$1 {{v}} $&', { v: '$1$&' }, '$1 $1$& $&'],
  ['', {}, ''],
].map(([template, variables, expected]) => {
  const got = render(template as string, variables as Record<string, unknown>);
  if (got !== expected) throw new Error(`render ${String(template)}: ${got} ≠ ${String(expected)}`);
  return { template, variables, expected };
});

const file = {
  specVersion: 1,
  description:
    'prompts.get(name, user, default) and template rendering, for the TypeScript, Python and Java clients to read in place (docs/wire-format.md#prompts). config is a GET /v1/config document. Each resolve case calls get(prompt, user, default) with label (absent: production), attributes (absent: none) and variables (absent: none) and expects source (experiment: the first running experiment whose variants reference the prompt gave the user a variant referencing it; label: the version the label names; default), version, experiment and variant (null unless source is experiment), text and messages rendered with the variables (the default is rendered too; a text version has messages null and a chat version text null), and exposure: whether the call sends the covering experiment’s exposure. Each render case renders template with variables. Generated by packages/conditions/scripts/write-prompts.ts.',
  config: { config_version: 1, bucketing_version: '1', experiments, prompts: PROMPTS },
  resolve: cases,
  render: renderCases,
};
writeFileSync(
  new URL('../../../testdata/prompts.json', import.meta.url),
  `${JSON.stringify(file, null, 2)}\n`,
);
const count = (s: string) => cases.filter((c) => c.expected.source === s).length;
console.log(
  `${cases.length} resolve cases: experiment ${count('experiment')}, label ${count('label')}, default ${count('default')}; ${renderCases.length} render cases`,
);
