import type { Experiment, ExperimentInput, MetricDefinition, Variant } from '../../api/client.ts';
import { targetingText } from './targeting.ts';

/** The editor's working copy: variables as JSON text so a half-typed object is not lost. */
export interface VariantDraft {
  key: string;
  prompt: string;
  /** A reference to a stored prompt version, kept as it was while the text field stays empty. */
  promptRef?: { name: string; version: number };
  variables: string;
}
export interface EditorDraft {
  name: string;
  salt: string;
  bucket_count: number;
  /** The layer's name, '' for none; chosen at creation, frozen after. */
  layer: string;
  layer_weight: number;
  allocation: Array<{ variant: string; weight: number }>;
  variants: VariantDraft[];
  metrics: MetricDefinition[];
  /** The condition as JSON text; empty means everyone may enter. */
  targeting: string;
}

export const newMetric = (): MetricDefinition => ({
  name: '',
  kind: 'latency',
  category: 'primary',
  method_default: 'welch_t',
  metric_version: 1,
  shared_org_wide: false,
});

export function blankDraft(): EditorDraft {
  return {
    name: '',
    salt: Math.random().toString(36).slice(2, 12),
    bucket_count: 10000,
    layer: '',
    layer_weight: 0,
    allocation: [
      { variant: 'control', weight: 50 },
      { variant: 'treatment', weight: 50 },
    ],
    variants: [],
    metrics: [],
    targeting: '',
  };
}

export function draftOf(e: Experiment): EditorDraft {
  return {
    name: e.name,
    salt: e.salt,
    bucket_count: e.bucket_count,
    layer: e.layer ?? '',
    layer_weight: e.layer_weight ?? 0,
    allocation: e.allocation.map((a) => ({ ...a })),
    variants: e.variants.map((v) => ({
      key: v.key,
      prompt: typeof v.prompt === 'string' ? v.prompt : '',
      ...(typeof v.prompt === 'object' ? { promptRef: v.prompt } : {}),
      variables: v.variables ? JSON.stringify(v.variables, null, 2) : '',
    })),
    metrics: e.metrics.map((m) => ({ ...m })),
    targeting: targetingText(e.targeting),
  };
}

/** The variants the allocation names get a row each, so every arm can carry a prompt. */
export function variantRows(d: EditorDraft): VariantDraft[] {
  const byKey = new Map(d.variants.map((v) => [v.key, v]));
  return d.allocation
    .filter((a) => a.variant !== '')
    .map((a) => byKey.get(a.variant) ?? { key: a.variant, prompt: '', variables: '' });
}

export class DraftError extends Error {}

export function toInput(d: EditorDraft): ExperimentInput {
  const variants: Variant[] = variantRows(d).map((v) => {
    const out: Variant = { key: v.key };
    if (v.prompt !== '') out.prompt = v.prompt;
    else if (v.promptRef !== undefined) out.prompt = v.promptRef;
    if (v.variables.trim() !== '') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(v.variables);
      } catch {
        throw new DraftError(`Variables of ${v.key} are not valid JSON`);
      }
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
        throw new DraftError(`Variables of ${v.key} must be a JSON object`);
      out.variables = parsed as Record<string, unknown>;
    }
    return out;
  });
  return {
    name: d.name,
    salt: d.salt,
    bucket_count: d.bucket_count,
    ...(d.layer === '' ? {} : { layer: d.layer, layer_weight: d.layer_weight }),
    allocation: d.allocation,
    variants,
    metrics: d.metrics,
    targeting: targetingOf(d.targeting),
  };
}

/**
 * Always sent: an empty box goes out as `{}`, the server's own spelling of "everyone", which is
 * how a PUT takes targeting off (a PUT keeps the fields it does not send). Any JSON object goes
 * out as typed, problems and all, so that the server's refusal names them.
 */
function targetingOf(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new DraftError('Targeting is not valid JSON');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new DraftError('Targeting must be a JSON object');
  return parsed as Record<string, unknown>;
}
