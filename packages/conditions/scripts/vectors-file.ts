/**
 * What the vectors scripts (write-eligibility.ts, write-lifecycle.ts, write-coverage.ts,
 * write-prompts.ts) share: a fixed sequence of
 * numbers, a case as the reference assign answers it, and the file around the cases.
 */
import { writeFileSync } from 'node:fs';
import {
  type Assigned,
  type Experiment,
  type Holdout,
  referenceAssign,
  type World,
} from './reference-assign.ts';

/** Numbers in [0, 1) from `seed`, the same on every run, so the file is too. */
export function fixedSequence(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/**
 * An experiment of the vectors, the `n`th of its file: two arms on 80 % of 100 buckets (a fifth
 * of the buckets in no range, so matching users can still be not enrolled), salt `salt-<name>`.
 */
export function twoArmExperiment(
  n: number,
  name: string,
  variants: Experiment['variants'],
): Experiment {
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    name,
    version: 1,
    salt: `salt-${name}`,
    bucket_count: 100,
    ranges: [
      { variant: 'control', start: 0, end: 40 },
      { variant: 'treatment', start: 40, end: 80 },
    ],
    variants,
  };
}

/** The `global` holdout of the vectors: 10 % of users (100 of 1,000 buckets) held out. */
export function globalHoldout(id: string): Holdout {
  return {
    id,
    name: 'global',
    salt: 'holdout-global',
    bucket_count: 1000,
    ranges: [{ start: 0, end: 100 }],
  };
}

export type VectorCase = {
  name: string;
  experiment: string;
  user_id: string;
  attributes?: Record<string, unknown>;
} & Assigned;

/**
 * One case: `user` with `attributes` (none: the caller passed none) asking for the experiment
 * named `experiment`, whose entry is `entry` (none: absent from the config).
 */
export function caseOf(
  world: World,
  name: string,
  experiment: string,
  entry: Experiment | undefined,
  user: string,
  attributes: Record<string, unknown> | undefined,
): VectorCase {
  const { variant, reason, exposures } = referenceAssign(world, entry, user, attributes ?? {});
  return {
    name,
    experiment,
    user_id: user,
    ...(attributes === undefined ? {} : { attributes }),
    variant,
    ...(reason === undefined ? {} : { reason }),
    exposures,
  };
}

/**
 * Writes `testdata/<file>`: the description, a config of `experiments` in `world`, and the cases
 * (two-space JSON and a final newline); then prints how many cases give a variant (`given`
 * names them) and how many give null for each of `reasons`.
 */
export function writeVectors(
  file: string,
  description: string,
  content: { experiments: Experiment[]; world: World; cases: VectorCase[] },
  counted: { given: string; reasons: readonly string[] },
): void {
  const { experiments, world, cases } = content;
  const document = {
    specVersion: 1,
    description,
    config: {
      config_version: 1,
      bucketing_version: '1',
      experiments,
      saved_groups: world.saved_groups,
      layers: world.layers,
      holdouts: world.holdouts,
    },
    cases,
  };
  writeFileSync(
    new URL(`../../../testdata/${file}`, import.meta.url),
    `${JSON.stringify(document, null, 2)}\n`,
  );
  const count = (f: (c: VectorCase) => boolean) => cases.filter(f).length;
  console.log(
    `${cases.length} cases: ${count((c) => c.variant !== null)} ${counted.given}, ${count((c) => c.variant === null)} null; ` +
      counted.reasons.map((r) => `${r} ${count((c) => c.reason === r)}`).join(', '),
  );
}
