import type { ConfigDoc } from './fake-arbiter.ts';

type Experiment = ConfigDoc['experiments'][number];

/** A two-arm experiment split at `split` of `bucket_count`; control first, as the server lays it out. */
export function twoArms(overrides: Partial<Experiment> & { split?: number } = {}): Experiment {
  const bucketCount = overrides.bucket_count ?? 10_000;
  const split = overrides.split ?? bucketCount / 2;
  return {
    id: '0b6f1c9e-7c1a-4d3e-9a43-0c1a2b3c4d5e',
    name: 'checkout-prompt',
    version: 1,
    salt: 's-8f2a',
    bucket_count: bucketCount,
    ranges: [
      { variant: 'control', start: 0, end: split },
      { variant: 'concise', start: split, end: bucketCount },
    ],
    variants: [
      { key: 'control', prompt: 'You are a helpful assistant.', variables: { temperature: 0.7 } },
      { key: 'concise', prompt: 'Answer in one sentence.', variables: { temperature: 0.2 } },
    ],
    ...overrides,
  };
}

export function configOf(version: number, ...experiments: Experiment[]): ConfigDoc {
  return { config_version: version, bucketing_version: '1', experiments };
}
