import { BINARY_KINDS, CUPED_KINDS } from '@arbiter/contract';
import type { ExperimentConfig, ExperimentConfigInput } from '../../schemas/experiment-config.ts';
import { UUID } from '../../schemas/uuid.ts';
import { DomainError } from '../outcomes.ts';

interface FieldError {
  pointer: string;
  detail: string;
}

/** Allocation variants missing from `variants` are added as variants without prompt or variables. */
export function normaliseConfig(input: ExperimentConfigInput): ExperimentConfig {
  const variants = [...(input.variants ?? [])];
  for (const slice of input.allocation) {
    if (!variants.some((v) => v.key === slice.variant)) variants.push({ key: slice.variant });
  }
  const config: ExperimentConfig = {
    name: input.name,
    salt: input.salt,
    bucket_count: input.bucket_count,
    allocation: input.allocation,
    metrics: input.metrics,
    variants,
  };
  if (input.description !== undefined) config.description = input.description;
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

/** What one metric definition breaks beyond its schema: kind and method, rubric, CUPED. */
function metricErrors(m: ExperimentConfig['metrics'][number], i: number): FieldError[] {
  const out: FieldError[] = [];
  if (m.method_default === 'two_proportion_z' && !BINARY_KINDS.includes(m.kind)) {
    out.push({
      pointer: `#/metrics/${i}/method_default`,
      detail: `two_proportion_z needs a binary kind (${BINARY_KINDS.join(', ')}), not ${m.kind}`,
    });
  }
  if (m.kind === 'judge' && m.rubric === undefined) {
    out.push({ pointer: `#/metrics/${i}/rubric`, detail: 'is required for judge metrics' });
  }
  if (m.cuped !== undefined && !CUPED_KINDS.includes(m.kind)) {
    out.push({
      pointer: `#/metrics/${i}/cuped`,
      detail: `CUPED adjusts value-like kinds (${CUPED_KINDS.join(', ')}), not ${m.kind}`,
    });
  }
  return out;
}

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
  if (errors.length > 0) {
    const first = errors[0] as FieldError;
    throw new DomainError(
      'config-invalid',
      `${errors.length} invalid field${errors.length === 1 ? '' : 's'} in the body; first: ${first.pointer} ${first.detail}`,
      { errors },
    );
  }
}
