/**
 * Writes testdata/coverage.json: who enters an experiment whose coverage admits only a share of
 * its eligible users, for the server and the three clients to read in place with the runner they
 * use for eligibility.json. The expected answers come from the reference assign
 * (reference-assign.ts), whose coverage check is the frozen coverage hash of packages/bucketing.
 *
 *   npx tsx packages/conditions/scripts/write-coverage.ts
 */
import { writeFileSync } from 'node:fs';
import {
  type Assigned,
  type Experiment,
  type Holdout,
  referenceAssign,
  type World,
} from './reference-assign.ts';
import { globalHoldout, twoArmExperiment } from './vectors-file.ts';

const HOLDOUTS: Holdout[] = [globalHoldout('00000000-0000-4000-8000-00000000d0a1')];
const WORLD: World = { saved_groups: {}, layers: [], holdouts: HOLDOUTS };
const PRO = { plan: { $in: ['pro', 'team'] } };
const GLOBAL = HOLDOUTS[0]?.id as string;

/** Two arms on 80 % of 100 buckets, so a covered user may still be not enrolled. */
const experiments: Experiment[] = [];
function add(name: string, extra: Partial<Experiment>): void {
  const variants = (['control', 'treatment'] as const).map((key) => ({
    key,
    prompt: `${name}: ${key} prompt`,
    variables: { arm: key },
  }));
  experiments.push({
    ...twoArmExperiment(0xd000 + experiments.length + 1, name, variants),
    ...extra,
  });
}

// One salt at three coverages: the steps of a ramp.
add('ramp-10', { salt: 'salt-ramp', coverage: 0.1 });
add('ramp-50', { salt: 'salt-ramp', coverage: 0.5 });
add('ramp-100', { salt: 'salt-ramp' });
add('quarter-held-targeted', { coverage: 0.25, holdouts: [GLOBAL], targeting: PRO });
add('none', { coverage: 0 });
add('draft-half', { status: 'draft', coverage: 0.5 });
add('stopped-quarter', { status: 'stopped', served_variant: 'treatment', coverage: 0.25 });

// A fixed sequence, so the file is the same on every run.
let seed = 20261130;
const next = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};
const PLANS = ['free', 'pro', 'team', undefined];
function randomAttributes(): Record<string, unknown> | undefined {
  if (next() < 0.1) return undefined;
  const plan = PLANS[Math.floor(next() * PLANS.length)];
  return plan === undefined ? {} : { plan };
}

type Case = {
  name: string;
  experiment: string;
  user_id: string;
  attributes?: Record<string, unknown>;
} & Assigned;
const cases: Case[] = [];
for (const experiment of experiments) {
  // The three steps of the ramp read the same users, so a case list shows each one's fate.
  const prefix = experiment.name.startsWith('ramp-') ? 'ramp' : experiment.name;
  for (let i = 0; i < 80; i++) {
    const user = `user-${prefix}-${i}`;
    const attributes = randomAttributes();
    const { variant, reason, exposures } = referenceAssign(
      WORLD,
      experiment,
      user,
      attributes ?? {},
    );
    cases.push({
      name: `${experiment.name} #${i}`,
      experiment: experiment.name,
      user_id: user,
      ...(attributes === undefined ? {} : { attributes }),
      variant,
      ...(reason === undefined ? {} : { reason }),
      exposures,
    });
  }
}

/** Every branch the file promises is reached, and raising coverage moved no one. */
function check(): void {
  const some = (what: string, f: (c: Case) => boolean) => {
    if (!cases.some(f)) throw new Error(`no case: ${what}`);
  };
  const of = (name: string) => cases.filter((c) => c.experiment === name);
  for (const name of ['ramp-10', 'ramp-50', 'quarter-held-targeted'])
    for (const reason of [undefined, 'not_covered', 'not_enrolled'])
      some(`${name} ${reason}`, (c) => c.experiment === name && c.reason === reason);
  for (const reason of ['held_out', 'not_targeted'])
    some(
      `quarter ${reason}`,
      (c) => c.experiment === 'quarter-held-targeted' && c.reason === reason,
    );
  some(
    'not covered past a holdout: its exposure is still sent',
    (c) => c.reason === 'not_covered' && c.exposures.length === 1,
  );
  if (of('none').some((c) => c.reason !== 'not_covered')) throw new Error('none admitted one');
  if (of('stopped-quarter').some((c) => c.variant !== 'treatment'))
    throw new Error('a stopped experiment read its coverage');
  const [ten, fifty, full] = ['ramp-10', 'ramp-50', 'ramp-100'].map(of) as [Case[], Case[], Case[]];
  ten.forEach((c, i) => {
    if (c.reason === 'not_covered') return;
    for (const wider of [fifty[i], full[i]])
      if (wider?.variant !== c.variant || wider.reason !== c.reason)
        throw new Error(`${c.user_id} changed between coverages`);
  });
}
check();

const file = {
  specVersion: 1,
  description:
    'Who enters an experiment whose coverage admits only a share of its eligible users: the server and the TypeScript, Python and Java clients read this file in place, with the runner they use for eligibility.json (same shape). An experiment\'s coverage (0 to 1; absent: 1) is read only while it runs, after holdouts, the layer and targeting and before its own bucket: a user enters when murmur3_x86_32(UTF-8("coverage:" + salt + ":" + user_id), seed 0) < coverage × 2^32; otherwise null, reason not_covered, and no exposure of the experiment (a holdout reached before still sends its own). A draft is null (reason draft) and a stopped experiment serves served_variant to every eligible user whatever its coverage. ramp-10, ramp-50 and ramp-100 share one salt and one list of users: every user ramp-10 admits has the same variant in the other two. Each case assigns user_id in experiment (by name) with attributes (absent: none, read as {}) and expects variant, reason (why variant is null, as POST /v1/assign says it) and exposures: every exposure assign sends, in order. Generated by packages/conditions/scripts/write-coverage.ts from the reference assign (packages/conditions/scripts/reference-assign.ts).',
  config: {
    config_version: 1,
    bucketing_version: '1',
    experiments,
    holdouts: HOLDOUTS,
  },
  cases,
};
writeFileSync(
  new URL('../../../testdata/coverage.json', import.meta.url),
  `${JSON.stringify(file, null, 2)}\n`,
);
const count = (f: (c: Case) => boolean) => cases.filter(f).length;
console.log(
  `${cases.length} cases: ${count((c) => c.variant !== null)} served; ` +
    ['not_covered', 'not_enrolled', 'held_out', 'not_targeted', 'draft']
      .map((r) => `${r} ${count((c) => c.reason === r)}`)
      .join(', '),
);
