import { and, asc, eq, inArray, or, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../../db/connect.ts';
import { promptLabels, prompts, promptVersions } from '../../db/schema.ts';
import type { ExperimentConfig } from '../../schemas/experiment-config.ts';
import type { PromptMessage, PromptReference } from '../../schemas/prompt.ts';
import { DomainError } from '../outcomes.ts';

type Reader = Pick<Database, 'select'>;

/** A variant's prompt reference, or undefined when its prompt is inline text (or absent). */
export function referenceOf(variant: {
  prompt?: string | PromptReference;
}): PromptReference | undefined {
  return typeof variant.prompt === 'object' ? variant.prompt : undefined;
}

/**
 * Refuses a config whose variants reference a prompt the org does not have, or a version the
 * prompt does not have yet, with a pointer to the reference.
 */
export async function checkPromptReferences(
  db: Reader,
  orgId: string,
  config: Pick<ExperimentConfig, 'variants'>,
): Promise<void> {
  const refs = (config.variants ?? []).flatMap((v, i) => {
    const ref = referenceOf(v);
    return ref === undefined ? [] : [{ ...ref, i }];
  });
  if (refs.length === 0) return;
  const found = await db
    .select({ name: prompts.name, latest: prompts.latestVersion })
    .from(prompts)
    .where(
      and(eq(prompts.orgId, orgId), inArray(prompts.name, [...new Set(refs.map((r) => r.name))])),
    );
  const latest = new Map(found.map((f) => [f.name, f.latest]));
  const errors = refs.flatMap(({ name, version, i }) => {
    const newest = latest.get(name);
    if (newest === undefined)
      return [
        { pointer: `#/variants/${i}/prompt/name`, detail: `no prompt named "${name}" in your org` },
      ];
    if (version > newest)
      return [
        {
          pointer: `#/variants/${i}/prompt/version`,
          detail: `prompt "${name}" has no version ${version} (its newest is ${newest})`,
        },
      ];
    return [];
  });
  if (errors.length === 0) return;
  const first = errors[0]!;
  throw new DomainError(
    'config-invalid',
    `${errors.length} invalid field${errors.length === 1 ? '' : 's'} in the body; first: ${first.pointer} ${first.detail}`,
    { errors },
  );
}

/** A version as the client config carries it. */
export interface ClientPromptVersion {
  text?: string;
  messages?: PromptMessage[];
  variables: string[];
  model_settings?: Record<string, unknown>;
}

/** A prompt as the client config carries it: its labels and the versions clients may serve. */
export interface ClientPrompt {
  labels: Record<string, number>;
  versions: Record<string, ClientPromptVersion>;
}

function clientVersion(row: typeof promptVersions.$inferSelect): ClientPromptVersion {
  return {
    ...(row.template.type === 'text'
      ? { text: row.template.text }
      : { messages: row.template.messages }),
    variables: row.variables,
    ...(row.modelSettings === null ? {} : { model_settings: row.modelSettings }),
  };
}

/**
 * The org's prompts as clients need them: each labelled prompt's labels, and the versions a
 * label points at or a served experiment references, so the config stays as small as what
 * can be served (docs/wire-format.md#prompts).
 */
export async function clientPrompts(
  db: Reader,
  orgId: string,
  referenced: readonly PromptReference[],
): Promise<Record<string, ClientPrompt>> {
  const labelled: SQL = sql`exists (select 1 from ${promptLabels} where ${promptLabels.promptId} = ${promptVersions.promptId} and ${promptLabels.version} = ${promptVersions.version})`;
  const wanted = referenced.map(
    (r) => and(eq(prompts.name, r.name), eq(promptVersions.version, r.version)) as SQL,
  );
  const versions = await db
    .select({ name: prompts.name, row: promptVersions })
    .from(promptVersions)
    .innerJoin(prompts, eq(prompts.id, promptVersions.promptId))
    .where(and(eq(prompts.orgId, orgId), or(labelled, ...wanted)))
    .orderBy(asc(prompts.name), asc(promptVersions.version));
  const labels = await db
    .select({ name: prompts.name, label: promptLabels.label, version: promptLabels.version })
    .from(promptLabels)
    .innerJoin(prompts, eq(prompts.id, promptLabels.promptId))
    .where(eq(prompts.orgId, orgId))
    .orderBy(asc(prompts.name), asc(promptLabels.label));
  const out: Record<string, ClientPrompt> = {};
  const entry = (name: string) => (out[name] ??= { labels: {}, versions: {} });
  for (const { name, row } of versions)
    entry(name).versions[String(row.version)] = clientVersion(row);
  for (const { name, label, version } of labels) entry(name).labels[label] = version;
  return out;
}

/** A variant as clients receive it: a reference is kept and resolved to its version's text. */
export interface ClientVariant {
  key: string;
  prompt?: string;
  prompt_ref?: PromptReference;
  variables?: Record<string, unknown>;
}

/**
 * A reference keeps its place in `prompt_ref`; `prompt` carries a text version's text, so a
 * client that reads only `prompt` (get_prompt) serves what it served for inline text. A chat
 * version has no single text: such a variant has no `prompt`.
 */
export function clientVariant(
  variant: { key: string; prompt?: string | PromptReference; variables?: Record<string, unknown> },
  resolved: Record<string, ClientPrompt>,
): ClientVariant {
  const ref = referenceOf(variant);
  if (ref === undefined) return variant as ClientVariant;
  const { prompt: _ref, ...rest } = variant;
  const text = resolved[ref.name]?.versions[String(ref.version)]?.text;
  return { ...rest, ...(text === undefined ? {} : { prompt: text }), prompt_ref: ref };
}

/** The references of the variants of served experiments, which the config must carry. */
export function servedReferences(
  variants: ReadonlyArray<{ prompt?: string | PromptReference }>,
): PromptReference[] {
  return variants.flatMap((v) => {
    const ref = referenceOf(v);
    return ref === undefined ? [] : [ref];
  });
}
