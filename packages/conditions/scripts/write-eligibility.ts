/**
 * Writes testdata/eligibility.json: who gets which variant once holdouts, layers and targeting
 * are applied, for the
 * server and the three clients to read in place. The expected variants come from the reference
 * pieces (packages/conditions, packages/bucketing), as bucketing.json's hashes come from the
 * reference MurmurHash3; every other evaluator must reproduce them.
 *
 *   npx tsx packages/conditions/scripts/write-eligibility.ts
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

const twoArms = (name: string, targeting?: unknown): Experiment => ({
  ...twoArmExperiment(experiments.length + 1, name, [{ key: 'control' }, { key: 'treatment' }]),
  ...(targeting === undefined ? {} : { targeting }),
});

/** The org's saved groups, shipped in the config as `saved_groups`. */
const SAVED_GROUPS = {
  beta: ['u-1', 7],
  'staff-emails': ['ann@acme.test'],
  'blocked-countries': ['CU', 'IR'],
};

const experiments: Experiment[] = [];
for (const [name, targeting] of [
  ['open', undefined],
  ['pro-english', { $and: [{ plan: { $in: ['pro', 'team'] } }, { locale: { $regexi: '^en' } }] }],
  ['mobile-from-2.4', { 'app.version': { $vgte: '2.4.0' }, device: { $in: ['ios', 'android'] } }],
  [
    'not-staff',
    { $nor: [{ email: { $regex: '@acme\\.test$' } }, { roles: { $elemMatch: { $eq: 'staff' } } }] },
  ],
  ['everyone', {}],
  ['beta-group', { $or: [{ id: { $inGroup: 'beta' } }, { email: { $inGroup: 'staff-emails' } }] }],
  ['not-blocked', { country: { $notInGroup: 'blocked-countries' } }],
  ['unreadable', { plan: { $bogus: 1 } }],
] as const) {
  experiments.push(twoArms(name, targeting));
}

/** Two layers: `chat` is shared by three experiments, `search` holds one on a sliver. */
const LAYERS: Layer[] = [
  { name: 'chat', salt: 'layer-chat', bucket_count: 1000 },
  { name: 'search', salt: 'layer-search', bucket_count: 100 },
];

/** Two holdouts: 10 % of users out of `global`, 2.5 % (bucket < 250 of 10,000) out of `q4`. */
const HOLDOUTS: Holdout[] = [
  globalHoldout('00000000-0000-4000-8000-00000000a001'),
  {
    id: '00000000-0000-4000-8000-00000000a002',
    name: 'q4',
    salt: 'holdout-q4',
    bucket_count: 10000,
    ranges: [{ start: 0, end: 250 }],
  },
];

for (const [name, extra] of [
  // the chat layer's buckets: [0,300) and [700,800) to chat-tone, [300,600) to chat-length,
  // [600,700) to chat-targeted; [800,1000) is owned by no one
  [
    'chat-tone',
    {
      layer: 'chat',
      layer_ranges: [
        { start: 0, end: 300 },
        { start: 700, end: 800 },
      ],
    },
  ],
  ['chat-length', { layer: 'chat', layer_ranges: [{ start: 300, end: 600 }] }],
  [
    'chat-targeted',
    {
      layer: 'chat',
      layer_ranges: [{ start: 600, end: 700 }],
      targeting: { plan: { $in: ['pro', 'team'] } },
    },
  ],
  ['search-sliver', { layer: 'search', layer_ranges: [{ start: 0, end: 5 }] }],
  // a layer the config does not carry: no one enters, nothing throws
  ['lost-layer', { layer: 'gone', layer_ranges: [{ start: 0, end: 100 }] }],
  ['held-global', { holdouts: [HOLDOUTS[0]?.id] }],
  [
    'held-both-layered-targeted',
    {
      holdouts: [HOLDOUTS[0]?.id, HOLDOUTS[1]?.id],
      layer: 'search',
      layer_ranges: [{ start: 5, end: 100 }],
      targeting: { country: { $notInGroup: 'blocked-countries' } },
    },
  ],
  // a holdout id the config does not carry holds no one out and records nothing
  ['held-unknown', { holdouts: ['00000000-0000-4000-8000-00000000afff'] }],
] as const) {
  const { targeting, ...rest } = extra as { targeting?: unknown };
  experiments.push({ ...twoArms(name, targeting), ...rest } as Experiment);
}

const next = fixedSequence(20261125);
const pick = <T>(choices: readonly T[]): T => choices[Math.floor(next() * choices.length)] as T;
const MISSING = Symbol('missing');

function randomAttributes(): Record<string, unknown> | undefined {
  if (next() < 0.08) return undefined; // no attributes at all
  const out: Record<string, unknown> = {};
  const fields: Array<[string, readonly unknown[]]> = [
    ['plan', ['free', 'pro', 'team', 'PRO', MISSING]],
    ['locale', ['en-US', 'EN-gb', 'fr-FR', '', MISSING]],
    ['device', ['ios', 'android', 'web', MISSING]],
    ['email', ['ann@acme.test', 'bob@example.com', 'cy@acme.test.org', MISSING]],
    ['roles', [['staff'], ['user'], ['user', 'staff'], [], MISSING]],
    ['id', ['u-1', 'u-2', 'u-3', 7, MISSING]],
    ['country', ['US', 'CU', 'FR', MISSING]],
  ];
  for (const [field, choices] of fields) {
    const value = pick(choices);
    if (value !== MISSING) out[field] = value;
  }
  const version = pick(['2.3.9', '2.4.0', '2.10.1', 'v2.4.0-beta', MISSING]);
  if (version !== MISSING) out.app = { version };
  return out;
}

const WORLD: World = { saved_groups: SAVED_GROUPS, layers: LAYERS, holdouts: HOLDOUTS };

/** One case: `user` with `attributes` (none: the caller passed none) in `experiment`. */
const caseIn = (
  name: string,
  experiment: Experiment,
  user: string,
  attributes: Record<string, unknown> | undefined,
) => caseOf(WORLD, name, experiment.name, experiment, user, attributes);

const cases: VectorCase[] = [];
for (const experiment of experiments) {
  // More users where a layer or holdout splits them, so every branch has cases.
  const users = experiment.layer !== undefined || experiment.holdouts !== undefined ? 120 : 40;
  for (let i = 0; i < users; i++) {
    const user = `user-${experiment.name}-${i}`;
    cases.push(caseIn(`${experiment.name} #${i}`, experiment, user, randomAttributes()));
  }
}

// The same users in every experiment of the chat layer: each enters at most one of them.
for (let i = 0; i < 60; i++) {
  const user = `user-chat-layer-${i}`;
  const attributes = randomAttributes();
  for (const experiment of experiments.filter((e) => e.layer === 'chat'))
    cases.push(
      caseIn(
        `chat layer, one user in each: ${experiment.name} #${i}`,
        experiment,
        user,
        attributes,
      ),
    );
}

writeVectors(
  'eligibility.json',
  "Who enters an experiment, once holdouts, layers and targeting are applied: the server and the TypeScript, Python and Java clients read this file in place. config is a GET /v1/config document; its saved_groups are what $inGroup/$notInGroup look values up in, its layers and holdouts what an experiment's layer and holdouts name. Each case assigns user_id in experiment (by name) with attributes (absent: the caller passed none, read as {}) and expects variant (null: control behaviour), reason (why variant is null, as POST /v1/assign says it) and exposures: every exposure that assign sends, in order (a holdout's first, then the experiment's own when variant is not null). Order of evaluation (docs/wire-format.md#who-enters-an-experiment-holdouts-layers-targeting): holdouts, then the layer, then targeting (docs/wire-format.md#the-condition-language-targeting), then the bucket (bucketing.json's function) against the experiment's ranges. An experiment without targeting, or with targeting {}, lets everyone in; a targeting the evaluator cannot read lets no one in and never throws. Generated by packages/conditions/scripts/write-eligibility.ts from the reference evaluator and bucketing.",
  { experiments, world: WORLD, cases },
  { given: 'enrolled', reasons: ['held_out', 'not_in_layer', 'not_targeted', 'not_enrolled'] },
);
