import { checkCondition } from '@arbiter/conditions';
import {
  CUPED_KINDS,
  methodRefusal,
  QUANTILE_KINDS,
  RATIO_BUSINESS_PARTS,
  RATIO_CALL_PARTS,
} from '@arbiter/contract';
import { quantileLevel } from '@arbiter/stats';
import type { ExperimentConfig, ExperimentConfigInput } from '../../schemas/experiment-config.ts';
import { UUID } from '../../schemas/uuid.ts';
import { DomainError } from '../outcomes.ts';
import { rolloutErrors } from '../rollouts/rollout-config.ts';
import { capErrors, withCapDefaults } from './metric-caps.ts';

interface FieldError {
  pointer: string;
  detail: string;
}

/**
 * Allocation variants missing from `variants` are added as variants without prompt or
 * variables; metrics get their caps decided against the version before (`withCapDefaults`).
 */
export function normaliseConfig(
  input: ExperimentConfigInput,
  before?: ExperimentConfig,
): ExperimentConfig {
  const variants = [...(input.variants ?? [])];
  for (const slice of input.allocation) {
    if (!variants.some((v) => v.key === slice.variant)) variants.push({ key: slice.variant });
  }
  const config: ExperimentConfig = {
    name: input.name,
    salt: input.salt,
    bucket_count: input.bucket_count,
    allocation: input.allocation,
    metrics: withCapDefaults(input.metrics, before?.metrics),
    variants,
  };
  if (input.description !== undefined) config.description = input.description;
  // An empty list declares nothing: stored as absent, so a config without breakdowns stays as it was.
  if (input.dimensions !== undefined && input.dimensions.length > 0)
    config.dimensions = input.dimensions;
  // An empty condition matches everyone: stored as absent, which is how a PUT takes targeting off.
  if (input.targeting !== undefined && Object.keys(input.targeting).length > 0)
    config.targeting = input.targeting;
  // Full coverage is stored as absent, so a config that never narrowed it keeps its bytes.
  if (input.coverage !== undefined && input.coverage !== 1) config.coverage = input.coverage;
  if (input.rollout !== undefined) config.rollout = input.rollout;
  if (input.layer !== undefined) config.layer = input.layer;
  if (input.layer_weight !== undefined) config.layer_weight = input.layer_weight;
  return config;
}

function duplicates(values: readonly string[]): Set<number> {
  const seen = new Set<string>();
  const dupes = new Set<number>();
  values.forEach((v, i) => {
    if (seen.has(v)) dupes.add(i);
    seen.add(v);
  });
  return dupes;
}

type Metric = ExperimentConfig['metrics'][number];

/** What one metric definition breaks beyond its schema: kind and method, rubric, CUPED. */
function metricErrors(m: Metric, i: number): FieldError[] {
  const at = (field: string) => `#/metrics/${i}/${field}`;
  const out: FieldError[] = [];
  const refusal = methodRefusal(m, m.method_default);
  if (refusal !== null) out.push({ pointer: at('method_default'), detail: refusal });
  if (m.kind === 'judge' && m.rubric === undefined) {
    out.push({ pointer: at('rubric'), detail: 'is required for judge metrics' });
  }
  if (m.cuped !== undefined && !CUPED_KINDS.includes(m.kind)) {
    out.push({
      pointer: at('cuped'),
      detail: `CUPED adjusts value-like kinds (${CUPED_KINDS.join(', ')}), not ${m.kind}`,
    });
  } else if (m.cuped !== undefined && m.quantile !== undefined) {
    out.push({ pointer: at('cuped'), detail: 'CUPED does not adjust quantile metrics' });
  }
  return [...out, ...quantileErrors(m, at), ...ratioErrors(m, at), ...capErrors(m, at)];
}

function quantileErrors(m: Metric, at: (field: string) => string): FieldError[] {
  if (m.quantile === undefined) return [];
  if (!QUANTILE_KINDS.includes(m.kind))
    return [
      {
        pointer: at('quantile'),
        detail: `a quantile is taken over model calls: kinds ${QUANTILE_KINDS.join(', ')}, not ${m.kind}`,
      },
    ];
  if (quantileLevel(m.quantile) === null)
    return [{ pointer: at('quantile'), detail: 'must have at most four decimals (e.g. 0.95)' }];
  return [];
}

/** A ratio needs both parts and a direction (CUPED_KINDS leaves ratios out); other kinds take no parts. */
function ratioErrors(m: Metric, at: (field: string) => string): FieldError[] {
  const parts = ['numerator', 'denominator'] as const;
  if (m.kind !== 'ratio')
    return parts
      .filter((p) => m[p] !== undefined)
      .map((p) => ({ pointer: at(p), detail: `only ratio metrics have a ${p}` }));
  const out: FieldError[] = [];
  for (const p of parts) {
    const part = m[p];
    if (part === undefined) out.push({ pointer: at(p), detail: 'is required for ratio metrics' });
    else if (part.business_metric === undefined && !isOneOf(RATIO_CALL_PARTS, part.of))
      out.push({
        pointer: `${at(p)}/of`,
        detail: `over model calls, of is one of ${RATIO_CALL_PARTS.join(', ')}; ${part.of} needs a business_metric`,
      });
    else if (part.business_metric !== undefined && !isOneOf(RATIO_BUSINESS_PARTS, part.of))
      out.push({
        pointer: `${at(p)}/of`,
        detail: `over a business metric, of is one of ${RATIO_BUSINESS_PARTS.join(', ')}`,
      });
  }
  if (m.direction === undefined)
    out.push({
      pointer: at('direction'),
      detail: 'is required for ratio metrics: which way is better',
    });
  return out;
}

const isOneOf = (choices: readonly string[], value: string) => choices.includes(value);

/** The rules a schema cannot state; every broken rule is reported with its pointer. */
export function checkConfig(config: ExperimentConfig): void {
  const errors: FieldError[] = [];
  if (UUID.test(config.name)) {
    errors.push({
      pointer: '#/name',
      detail: 'must not be shaped like a UUID: experiments are addressed by name or id',
    });
  }
  for (const i of duplicates(config.variants.map((v) => v.key))) {
    errors.push({ pointer: `#/variants/${i}/key`, detail: 'duplicate variant key' });
  }
  for (const i of duplicates(config.allocation.map((s) => s.variant))) {
    errors.push({ pointer: `#/allocation/${i}/variant`, detail: 'variant already has a slice' });
  }
  let total = 0;
  config.allocation.forEach((slice, i) => {
    total += Math.round(slice.weight * 100);
    if (Math.abs(slice.weight * 100 - Math.round(slice.weight * 100)) > 1e-6) {
      errors.push({ pointer: `#/allocation/${i}/weight`, detail: 'must be a multiple of 0.01' });
    }
  });
  if (total > 10_000) {
    errors.push({
      pointer: '#/allocation',
      detail: `weights sum to ${total / 100}%, more than 100%`,
    });
  }
  for (const i of duplicates(config.metrics.map((m) => m.name))) {
    errors.push({ pointer: `#/metrics/${i}/name`, detail: 'duplicate metric name' });
  }
  config.metrics.forEach((m, i) => {
    errors.push(...metricErrors(m, i));
  });
  for (const i of duplicates(config.dimensions ?? [])) {
    errors.push({ pointer: `#/dimensions/${i}`, detail: 'dimension already declared' });
  }
  if (config.layer !== undefined && config.layer_weight === undefined)
    errors.push({ pointer: '#/layer_weight', detail: 'is required with layer' });
  if (config.layer === undefined && config.layer_weight !== undefined)
    errors.push({ pointer: '#/layer', detail: 'is required with layer_weight' });
  if (
    config.layer_weight !== undefined &&
    Math.abs(config.layer_weight * 100 - Math.round(config.layer_weight * 100)) > 1e-6
  )
    errors.push({ pointer: '#/layer_weight', detail: 'must be a multiple of 0.01' });
  // What no evaluator can read, patterns the clients would read differently included.
  for (const problem of checkCondition(config.targeting ?? {})) {
    errors.push({ pointer: `#/targeting${problem.pointer}`, detail: problem.message });
  }
  errors.push(...rolloutErrors(config.rollout));
  if (errors.length > 0) {
    const first = errors[0] as FieldError;
    throw new DomainError(
      'config-invalid',
      `${errors.length} invalid field${errors.length === 1 ? '' : 's'} in the body; first: ${first.pointer} ${first.detail}`,
      { errors },
    );
  }
}
