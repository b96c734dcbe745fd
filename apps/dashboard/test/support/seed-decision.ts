import { seeded } from '../../../server/test/support/analysis-data.ts';
import {
  type Api,
  createExperiment,
  ingest,
  newOrg,
  runPipeline,
  secretKey,
  waitForExposures,
} from './seed.ts';

/** A primary conversion metric and a latency guardrail: what a decision is made on. */
export const DECISION_METRICS = [
  {
    name: 'checkout',
    kind: 'conversion',
    category: 'primary',
    method_default: 'two_proportion_z',
    metric_version: 1,
    shared_org_wide: false,
  },
  {
    name: 'latency',
    kind: 'latency',
    category: 'guardrail',
    method_default: 'welch_t',
    metric_version: 1,
    shared_org_wide: false,
  },
];

/** One arm: its users, how many of them check out, and its mean latency (sd 60 ms). */
interface Arm {
  users: number;
  checkouts: number;
  latency: number;
}

/**
 * Each user's exposure and model call, and a checkout for the first `checkouts` users of the
 * arm: conversion is exact, latency drawn from a seeded normal.
 */
function decisionEvents(
  experimentId: string,
  arms: Record<string, Arm>,
  seed: number,
  timestamp: string,
) {
  const { normal } = seeded(seed);
  const events: object[] = [];
  for (const [variant, arm] of Object.entries(arms))
    for (let u = 0; u < arm.users; u++) {
      const user = `${variant}-${u}`;
      const base = { experiment_id: experimentId, user_id: user, timestamp, variant };
      const id = `${experimentId}-${user}`;
      events.push({ ...base, event_id: `x-${id}`, type: 'exposure' });
      events.push({
        ...base,
        event_id: `m-${id}`,
        type: 'model_call',
        latency_ms: Math.max(1, normal(arm.latency, 60)),
        input_tokens: 100,
        output_tokens: 20,
        model: 'm',
      });
      if (u < arm.checkouts)
        events.push({
          ...base,
          event_id: `c-${id}`,
          type: 'business_event',
          business_metric: 'checkout',
          value: 1,
        });
    }
  return events;
}

/**
 * The experiments a test may ask for, each with a primary `checkout` and a `latency`
 * guardrail: `ship` (three-arms) ships fast (checkout 10 % → 20 %) while slim breaks the
 * latency guardrail (+60 ms); `keepControl` (slow-copy) keeps control, its only treatment
 * breaking the guardrail; `undecided` (small-lift) keeps collecting (10 % → 11 %, not yet
 * significant); `manual` (peek-me) ships on its nightly run, for a manual run to be made on it.
 */
const EXPERIMENTS = {
  ship: {
    name: 'three-arms',
    allocation: { control: 33.3, fast: 33.3, slim: 33.3 },
    arms: {
      control: { users: 600, checkouts: 60, latency: 500 },
      fast: { users: 600, checkouts: 120, latency: 470 },
      slim: { users: 600, checkouts: 60, latency: 560 },
    },
  },
  keepControl: {
    name: 'slow-copy',
    allocation: { control: 50, treatment: 50 },
    arms: {
      control: { users: 400, checkouts: 40, latency: 500 },
      treatment: { users: 400, checkouts: 40, latency: 560 },
    },
  },
  undecided: {
    name: 'small-lift',
    allocation: { control: 50, treatment: 50 },
    arms: {
      control: { users: 400, checkouts: 40, latency: 500 },
      treatment: { users: 400, checkouts: 44, latency: 500 },
    },
  },
  manual: {
    name: 'peek-me',
    allocation: { control: 50, treatment: 50 },
    arms: {
      control: { users: 400, checkouts: 40, latency: 500 },
      treatment: { users: 400, checkouts: 80, latency: 480 },
    },
  },
} satisfies Record<
  string,
  { name: string; allocation: Record<string, number>; arms: Record<string, Arm> }
>;
export type DecisionExperiment = keyof typeof EXPERIMENTS;

export interface DecisionOrg<N extends DecisionExperiment> {
  org: string;
  api: Api;
  ids: Record<N, string>;
  /** The UTC day of the nightly run: the day the events are stamped. */
  day: string;
}

/**
 * A new org with the experiments asked for (see EXPERIMENTS), their events ingested and
 * folded, and the nightly run made for the day the events are stamped (taken after the
 * experiments exist, so a seed that crosses midnight still analyses them).
 */
export async function seedDecisionOrg<N extends DecisionExperiment>(
  base: string,
  dataDir: string,
  names: readonly N[],
): Promise<DecisionOrg<N>> {
  const { org, api } = await newOrg(base, 'acme-decide');
  const key = await secretKey(api);
  const ids = {} as Record<N, string>;
  for (const n of names) {
    const e = EXPERIMENTS[n];
    ids[n] = await createExperiment(api, e.name, e.allocation, DECISION_METRICS);
  }
  const timestamp = new Date().toISOString();
  const day = timestamp.slice(0, 10);
  const events = names.flatMap((n, i) =>
    decisionEvents(ids[n], EXPERIMENTS[n].arms, 28 + i, timestamp),
  );
  await ingest(base, key, events);
  for (const n of names) {
    const users = Object.values(EXPERIMENTS[n].arms as Record<string, Arm>);
    await waitForExposures(
      api,
      ids[n],
      users.reduce((sum, a) => sum + a.users, 0),
    );
  }
  runPipeline(dataDir, day);
  return { org, api, ids, day };
}
