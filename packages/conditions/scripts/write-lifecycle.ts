/**
 * Writes testdata/lifecycle.json: what assign answers for an experiment in each state of its
 * lifecycle (draft, running, stopped with a served variant, archived: absent from the config),
 * for the server and the three clients to read in place with the runner they use for
 * eligibility.json. The expected answers come from the reference assign (reference-assign.ts).
 *
 *   npx tsx packages/conditions/scripts/write-lifecycle.ts
 */
import type { Experiment, Holdout, Layer, World } from './reference-assign.ts';
import {
  caseOf,
  fixedSequence,
  globalHoldout,
  twoArmExperiment,
  type VectorCase,
  writeVectors,
} from './vectors-file.ts';

const HOLDOUTS: Holdout[] = [globalHoldout('00000000-0000-4000-8000-00000000c0a1')];
const LAYERS: Layer[] = [{ name: 'search', salt: 'layer-search', bucket_count: 100 }];
const WORLD: World = { saved_groups: { beta: ['u-1', 7] }, layers: LAYERS, holdouts: HOLDOUTS };

const PRO = { plan: { $in: ['pro', 'team'] } };
const GLOBAL = HOLDOUTS[0]?.id as string;

/**
 * Each experiment: two arms on 80 % of 100 buckets (a fifth in no range, so a running one has
 * users not enrolled and a stopped one shows those users get the served variant too), each
 * variant with its own prompt and variables.
 */
const experiments: Experiment[] = [];
function add(name: string, extra: Partial<Experiment>): void {
  experiments.push({
    ...twoArmExperiment(0xc000 + experiments.length + 1, name, [
      { key: 'control', prompt: `${name}: control prompt`, variables: { arm: 'control' } },
      { key: 'treatment', prompt: `${name}: treatment prompt`, variables: { arm: 'treatment' } },
    ]),
    ...extra,
  });
}

add('draft', { status: 'draft' });
add('draft-held-targeted', { status: 'draft', holdouts: [GLOBAL], targeting: PRO });
add('running', { status: 'running', holdouts: [GLOBAL], targeting: PRO });
add('unmarked', { holdouts: [GLOBAL] }); // no status: running, as configs before the lifecycle
add('shipped', {
  status: 'stopped',
  served_variant: 'treatment',
  holdouts: [GLOBAL],
  targeting: PRO,
});
add('shipped-control', { status: 'stopped', served_variant: 'control' });
add('rolled-back', { status: 'stopped', served_variant: 'control', holdouts: [GLOBAL] });
add('inconclusive', { status: 'stopped', served_variant: 'control', targeting: PRO });
add('stopped-layered', {
  status: 'stopped',
  served_variant: 'treatment',
  layer: 'search',
  layer_ranges: [{ start: 0, end: 50 }],
});
/** Archived experiments: named by cases, absent from the config. */
const ARCHIVED = ['archived-from-stopped', 'archived-from-draft'];

const next = fixedSequence(20261129);
const PLANS = ['free', 'pro', 'team', 'PRO', undefined];
function randomAttributes(): Record<string, unknown> | undefined {
  if (next() < 0.1) return undefined; // no attributes at all
  const plan = PLANS[Math.floor(next() * PLANS.length)];
  return { ...(plan === undefined ? {} : { plan }), country: next() < 0.5 ? 'US' : 'FR' };
}

const cases: VectorCase[] = [];
for (const name of [...experiments.map((e) => e.name), ...ARCHIVED]) {
  const experiment = experiments.find((e) => e.name === name);
  for (let i = 0; i < 60; i++) {
    const user = `user-${name}-${i}`;
    cases.push(caseOf(WORLD, `${name} #${i}`, name, experiment, user, randomAttributes()));
  }
}

/** Every branch the file promises is reached, so a regenerated file cannot silently lose one. */
function checkCoverage(): void {
  const some = (what: string, f: (c: (typeof cases)[number]) => boolean) => {
    if (!cases.some(f)) throw new Error(`no case: ${what}`);
  };
  const of = (name: string) => (c: (typeof cases)[number]) => c.experiment === name;
  const inRange = (c: (typeof cases)[number], name: string) => {
    const e = experiments.find((x) => x.name === name) as Experiment;
    return c.exposures.some((x) => x.experiment_id === e.id);
  };
  some(
    'draft with a holdout and targeting',
    (c) => of('draft-held-targeted')(c) && c.reason === 'draft',
  );
  for (const name of ['running', 'unmarked'])
    for (const reason of [undefined, 'not_enrolled', 'held_out'])
      some(`${name} ${reason}`, (c) => of(name)(c) && c.reason === reason);
  for (const reason of [undefined, 'held_out', 'not_targeted'])
    some(`shipped ${reason}`, (c) => of('shipped')(c) && c.reason === reason);
  some(
    'shipped served with a general holdout exposure',
    (c) => of('shipped')(c) && c.variant === 'treatment' && c.exposures.length === 1,
  );
  some(
    'stopped-layered not in layer',
    (c) => of('stopped-layered')(c) && c.reason === 'not_in_layer',
  );
  for (const c of cases) {
    const e = experiments.find((x) => x.name === c.experiment);
    if (e?.status === 'stopped' && (inRange(c, c.experiment) || c.reason === 'not_enrolled'))
      throw new Error(`${c.name}: a stopped experiment sent its own exposure`);
  }
}
checkCoverage();

writeVectors(
  'lifecycle.json',
  "What assign answers for an experiment in each state of its lifecycle: the server and the TypeScript, Python and Java clients read this file in place, with the runner they use for eligibility.json (same shape). config is a GET /v1/config document; each experiment's status is draft, running or stopped (absent: running, as in configs written before the lifecycle), and a stopped one carries served_variant. Archived experiments are absent from the config: the cases naming archived-from-stopped and archived-from-draft expect null, reason unknown_experiment, no exposures. draft: null, reason draft, nothing evaluated and no exposure sent, not even a holdout's. running: as eligibility.json. stopped: holdouts, the layer and targeting decide eligibility as while it ran (reasons held_out, not_in_layer, not_targeted; a holdout's exposures are still sent); an eligible user gets served_variant whatever the bucket (never not_enrolled), with that variant's prompt and variables, and the experiment's own exposure is not sent. Each case assigns user_id in experiment (by name) with attributes (absent: none, read as {}) and expects variant, reason (why variant is null, as POST /v1/assign says it) and exposures: every exposure assign sends, in order. Generated by packages/conditions/scripts/write-lifecycle.ts from the reference assign (packages/conditions/scripts/reference-assign.ts).",
  { experiments, world: WORLD, cases },
  {
    given: 'served',
    reasons: [
      'draft',
      'unknown_experiment',
      'held_out',
      'not_in_layer',
      'not_targeted',
      'not_enrolled',
    ],
  },
);
