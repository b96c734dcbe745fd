import { bucketOf, variantForBucket } from '@arbiter/bucketing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Results } from '../../src/analysis/results-schema.ts';
import { ingestAll, runNightlyFor, seeded, today } from '../support/analysis-data.ts';
import { metric } from '../support/builders.ts';
import { type Harness, startHarness } from '../support/harness.ts';

/**
 * Issue 28 through the HTTP API: a run's recommendation, its guardrail violations and their
 * audit trail, and the sample-size estimate while an experiment collects.
 */
let h: Harness;
let org: Awaited<ReturnType<Harness['org']>>;

beforeAll(async () => {
  h = await startHarness({ ARBITER_MANUAL_RUNS_PER_HOUR: '100' });
  org = await h.org('decision-org');
});
afterAll(() => h.close());

const get = (url: string) => h.call(org.admin, { method: 'GET', url });

/** A 50/50 experiment; `arm(user)` answers each user's variant as the server buckets it. */
async function create(name: string, metrics: object[]) {
  const res = await h.call(org.admin, {
    method: 'POST',
    url: '/v1/experiments',
    payload: {
      name,
      salt: `${name}-salt`,
      bucket_count: 1000,
      allocation: [
        { variant: 'control', weight: 50 },
        { variant: 'treatment', weight: 50 },
      ],
      metrics,
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  const experiment = res.json() as {
    id: string;
    bucket_ranges: Array<{ variant: string; start: number; end: number }>;
  };
  const arm = (user: string) =>
    variantForBucket(experiment.bucket_ranges, bucketOf(`${name}-salt`, user, 1000)) as string;
  return { id: experiment.id, arm };
}

interface Arms {
  /** Conversion probability per arm. */
  conversion: Record<string, number>;
  /** Mean latency per arm (sd 60 ms). */
  latency: Record<string, number>;
}

/** One exposure, one model call and maybe a checkout per user, all stamped `timestamp`. */
function events(
  exp: { id: string; arm: (u: string) => string },
  users: number,
  arms: Arms,
  options: { seed: number; prefix: string; timestamp?: string },
) {
  const rng = seeded(options.seed);
  const timestamp = options.timestamp ?? new Date().toISOString();
  const out: object[] = [];
  for (let i = 0; i < users; i++) {
    const user = `${options.prefix}${i}`;
    const variant = exp.arm(user);
    const base = { experiment_id: exp.id, user_id: user, timestamp };
    out.push({ ...base, event_id: `${options.prefix}x-${i}`, type: 'exposure' });
    out.push({
      ...base,
      event_id: `${options.prefix}m-${i}`,
      type: 'model_call',
      latency_ms: Math.max(1, rng.normal(arms.latency[variant] ?? 500, 60)),
      input_tokens: 100,
      output_tokens: 20,
      model: 'm',
    });
    if (rng.next() < (arms.conversion[variant] ?? 0.1))
      out.push({
        ...base,
        event_id: `${options.prefix}c-${i}`,
        type: 'business_event',
        business_metric: 'checkout',
        value: 1,
      });
  }
  return out;
}

const METRICS = [
  metric('checkout', 'conversion', 'two_proportion_z', 'primary'),
  metric('latency', 'latency', 'welch_t', 'guardrail'),
];

describe('a shippable run', () => {
  let exp: Awaited<ReturnType<typeof create>>;
  let body: Results;

  beforeAll(async () => {
    exp = await create('shippable', METRICS);
    await ingestAll(
      h,
      org.secret,
      events(
        exp,
        1600,
        { conversion: { control: 0.1, treatment: 0.2 }, latency: { control: 500, treatment: 500 } },
        { seed: 28, prefix: 's' },
      ),
    );
    await runNightlyFor(h, today());
    const res = await get(`/v1/experiments/${exp.id}/results`);
    expect(res.statusCode, res.body).toBe(200);
    body = res.json();
  });

  it('recommends shipping the treatment, naming the metric', () => {
    const checkout = body.results['checkout::treatment'];
    expect(checkout?.outcome).toBe('better');
    expect(checkout?.direction).toBe('increase');
    expect(body.results['latency::treatment']?.outcome).toBe('inconclusive');
    expect(body.results['latency::treatment']?.direction).toBe('decrease');
    expect(body.decision.recommendation).toBe('ship');
    expect(body.decision.treatment).toBe('treatment');
    expect(body.decision.reasons[0]).toMatch(
      /^Ship treatment: checkout \+\d+\.\d% \(better\), no guardrail broken\.$/,
    );
  });

  it('serves a run stored before decisions with a decision and outcomes derived from it', async () => {
    await h.ctx.db.execute(sql`update analysis_runs set decision = null,
      results = (select jsonb_object_agg(key, value - 'direction' - 'outcome')
                 from jsonb_each(results))
      where experiment_id = ${exp.id}::uuid`);
    const old = (await get(`/v1/experiments/${exp.id}/results`)).json() as Results;
    expect(old.decision).toEqual(body.decision);
    expect(old.results).toEqual(body.results);
  });
});
