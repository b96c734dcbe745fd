import type { BucketMap } from '@arbiter/contract';
import type { ExperimentConfig } from '../../schemas/experiment-config.ts';

/** Held-out buckets: ⌈bucket_count × percent ÷ 100⌉, in hundredths of a percent, exactly. */
export function heldOutBuckets(bucketCount: number, percent: number): number {
  return Math.ceil((bucketCount * Math.round(percent * 100)) / 10_000);
}

export function bucketMapOf(bucketCount: number, held: number): BucketMap {
  const runs = [
    { variant: 'holdout', start: 0, end: held },
    { variant: 'general', start: held, end: bucketCount },
  ].filter((r) => r.end > r.start);
  return { bucket_count: bucketCount, runs };
}

/** The backing experiment's config: the holdout's arms, with the percent as the allocation. */
export function backingConfig(
  name: string,
  salt: string,
  bucketCount: number,
  percent: number,
  metrics: ExperimentConfig['metrics'],
  description: string | undefined,
): ExperimentConfig {
  const config: ExperimentConfig = {
    // An experiment's name may not hold ":", so this one never takes an experiment's name.
    name: `holdout:${name}`,
    salt,
    bucket_count: bucketCount,
    allocation: [
      { variant: 'holdout', weight: percent },
      { variant: 'general', weight: Math.round((100 - percent) * 100) / 100 },
    ],
    metrics,
    variants: [{ key: 'holdout' }, { key: 'general' }],
  };
  if (description !== undefined) config.description = description;
  return config;
}
