import { bucketOf, variantForBucket } from '@arbiter/bucketing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Results } from '../../../src/analysis/results/results-schema.ts';
import { startReceiver } from '../../domain/outbound-webhooks/receiver.ts';
import { ingestAll, runNightlyFor, seeded, today } from '../../support/analysis-data.ts';
import { experimentConfig, metric } from '../../support/builders.ts';
import { type Harness, startHarness } from '../../support/harness.ts';

/**
 * Decisions through the HTTP API: a run's recommendation, its guardrail violations and their
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
    payload: experimentConfig({ name, salt: `${name}-salt`, metrics }),
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

/** A new experiment with METRICS, `users` users drawn at `arms` sent to it, and tonight's run made. */
async function nightlyRunOf(
  name: string,
  users: number,
  arms: Arms,
  options: { seed: number; prefix: string },
) {
  const exp = await create(name, METRICS);
  await ingestAll(h, org.secret, events(exp, users, arms, options));
  await runNightlyFor(h, today());
  return exp;
}

describe('a shippable run', () => {
  let exp: Awaited<ReturnType<typeof create>>;
  let body: Results;

  beforeAll(async () => {
    exp = await nightlyRunOf(
      'shippable',
      1600,
      { conversion: { control: 0.1, treatment: 0.2 }, latency: { control: 500, treatment: 500 } },
      { seed: 28, prefix: 's' },
    );
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

interface AuditEntry {
  action: string;
  target_id: string;
  details: Record<string, unknown>;
  actor: unknown;
}

const violationsOf = async (experimentId: string) =>
  ((await get(`/v1/audit?target_id=${experimentId}`)).json() as AuditEntry[]).filter(
    (e) => e.action === 'guardrail.violated',
  );

describe('a run that breaks a guardrail', () => {
  let exp: Awaited<ReturnType<typeof create>>;
  let body: Results;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver();
    const endpoint = await h.call(org.admin, {
      method: 'POST',
      url: '/v1/webhook-endpoints',
      payload: { url: receiver.url, event_types: ['results.published', 'guardrail.violated'] },
    });
    expect(endpoint.statusCode, endpoint.body).toBe(201);
    exp = await nightlyRunOf(
      'broken-guardrail',
      1600,
      { conversion: { control: 0.1, treatment: 0.2 }, latency: { control: 500, treatment: 560 } },
      { seed: 29, prefix: 'g' },
    );
    body = (await get(`/v1/experiments/${exp.id}/results`)).json();
  });

  it('keeps control although the primary metric is better, and lists the violation', () => {
    expect(body.results['checkout::treatment']?.outcome).toBe('better');
    const latency = body.results['latency::treatment'];
    expect(latency?.outcome).toBe('worse');
    expect(body.decision.recommendation).toBe('keep_control');
    expect(body.decision.treatment).toBeNull();
    expect(body.decision.reasons.join(' ')).toContain('guardrail latency is worse');
    expect(body.guardrail_violations).toEqual([
      {
        metric: 'latency',
        treatment: 'treatment',
        direction: 'decrease',
        effect: latency?.effect,
        lift: latency?.lift,
        ci_low: latency?.ci_low,
        ci_high: latency?.ci_high,
        p_value_fdr: latency?.p_value_fdr,
        always_valid: false,
      },
    ]);
  });

  it('records the violation in the audit log once, however often the night is re-run', async () => {
    await runNightlyFor(h, today());
    await runNightlyFor(h, today());
    const entries = await violationsOf(exp.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      target_id: exp.id,
      actor: null,
      details: { run: today(), run_kind: 'nightly', metric: 'latency', treatment: 'treatment' },
    });
  });

  it('tells the webhook endpoints once: results published and the guardrail violated', async () => {
    await runNightlyFor(h, today());
    await h.ctx.webhookDelivery.drain();
    const events = receiver.received
      .map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> })
      .filter((e) => e.data.experiment_id === exp.id);
    expect(events.map((e) => e.type).sort()).toEqual(['guardrail.violated', 'results.published']);
    expect(events.find((e) => e.type === 'results.published')?.data).toEqual({
      experiment_id: exp.id,
      day: today(),
      final: false,
      recommendation: 'keep_control',
      treatment: null,
      violations: 1,
      link: `/experiments/${exp.id}/results?run=${today()}`,
    });
    expect(events.find((e) => e.type === 'guardrail.violated')?.data).toMatchObject({
      run: today(),
      metric: 'latency',
      treatment: 'treatment',
    });
  });

  it('records a manual run’s violation under its own label, on its always-valid values', async () => {
    const res = await h.call(org.admin, {
      method: 'POST',
      url: `/v1/experiments/${exp.id}/analyze`,
    });
    const run = res.json() as Results;
    const latency = run.results['latency::treatment'];
    expect(run.guardrail_violations).toEqual([
      expect.objectContaining({
        metric: 'latency',
        ci_low: latency?.sequential?.ci_low,
        ci_high: latency?.sequential?.ci_high,
        p_value_fdr: latency?.sequential?.p_value_fdr,
        always_valid: true,
      }),
    ]);
    const entries = await violationsOf(exp.id);
    expect(entries.map((e) => e.details.run).sort()).toEqual([today(), run.computed_for].sort());
  });

  it('exports the decision, the outcomes and the violation as columns, in JSON and CSV alike', async () => {
    const url = `/v1/experiments/${exp.id}/results/export?day=${today()}`;
    const rows = (await get(`${url}&format=json`)).json() as Array<Record<string, unknown>>;
    const latency = rows.find((r) => r.metric === 'latency');
    const checkout = rows.find((r) => r.metric === 'checkout');
    expect(latency).toMatchObject({
      direction: 'decrease',
      outcome: 'worse',
      guardrail_violated: true,
      recommendation: 'keep_control',
      recommended_treatment: null,
      mde: null,
      users_needed_per_arm: null,
      days_to_decision: null,
    });
    expect(JSON.parse(latency?.decision_reasons as string)).toEqual(body.decision.reasons);
    expect(checkout).toMatchObject({ outcome: 'better', guardrail_violated: false });
    const csv = (await get(`${url}&format=csv`)).body;
    const header = csv.slice(0, csv.indexOf('\r\n')).split(',');
    // Added with decisions, after the columns before them (later additions follow).
    expect(
      header.slice(header.indexOf('direction'), header.indexOf('decision_reasons') + 1),
    ).toEqual([
      'direction',
      'outcome',
      'guardrail_violated',
      'mde',
      'users_needed_per_arm',
      'days_to_decision',
      'recommendation',
      'recommended_treatment',
      'decision_reasons',
    ]);
    expect(header.indexOf('direction')).toBe(header.indexOf('distribution') + 1);
    expect(csv).toContain(',decrease,worse,true,,,,keep_control,,');
  });

  it('counts violations per experiment in the summary', async () => {
    const shippable = await nightlyRunOf(
      'summary-shippable',
      1000,
      { conversion: { control: 0.1, treatment: 0.1 }, latency: { control: 500, treatment: 500 } },
      { seed: 30, prefix: 'q' },
    );
    const summary = (await get('/v1/results/summary')).json() as Array<
      Results & { guardrail_violation_count: number }
    >;
    const count = (id: string) =>
      summary.find((s) => s.experiment_id === id)?.guardrail_violation_count;
    expect(count(exp.id)).toBe(1);
    expect(count(shippable.id)).toBe(0);
  });
});

describe('a manual A/A run peeked at 20 times', () => {
  it('raises no violation, though the fixed-horizon p-value alone would have', async () => {
    const aa = await create('aa-peeks', [metric('latency', 'latency', 'welch_t', 'guardrail')]);
    // Seed 10 of this generator crosses fixed-horizon p < 0.05 (treatment slower) at the
    // sixth peek: what a fixed-horizon guardrail would have reported as a violation.
    const all = events(
      aa,
      2400,
      { conversion: {}, latency: { control: 500, treatment: 500 } },
      { seed: 10, prefix: 'a' },
    );
    // Grouped once: filtering all 7,200 events for each of 2,400 users took most of this test.
    const byUser = new Map<string, object[]>();
    for (const e of all) {
      const user = (e as { user_id: string }).user_id;
      const own = byUser.get(user);
      if (own === undefined) byUser.set(user, [e]);
      else own.push(e);
    }
    const perUser = (i: number) => byUser.get(`a${i}`) ?? [];
    let sent = 0;
    let fixedWouldFire = 0;
    for (let peek = 0; peek < 20; peek++) {
      const upTo = 500 + 100 * peek;
      const batch: object[] = [];
      for (; sent < upTo; sent++) batch.push(...perUser(sent));
      await ingestAll(h, org.secret, batch);
      const res = await h.call(org.admin, {
        method: 'POST',
        url: `/v1/experiments/${aa.id}/analyze`,
      });
      expect(res.statusCode, res.body).toBe(200);
      const run = res.json() as Results;
      const latency = run.results['latency::treatment'];
      expect(latency?.preliminary).toBe(true);
      if ((latency?.p_value_fdr as number) < 0.05 && (latency?.effect as number) > 0)
        fixedWouldFire += 1;
      expect(latency?.outcome).toBe('inconclusive');
      expect(run.guardrail_violations).toEqual([]);
      expect(run.decision.recommendation).toBe('keep_collecting');
    }
    expect(fixedWouldFire).toBeGreaterThan(0);
    expect(await violationsOf(aa.id)).toEqual([]);
  });
});

describe('time to a decision', () => {
  const Z = 1.959963984540054 + 0.8416212335729143; // scipy norm.ppf(0.975) + norm.ppf(0.8)
  const variance = (v: number[]) => {
    const mean = v.reduce((a, b) => a + b, 0) / v.length;
    return v.reduce((a, x) => a + (x - mean) ** 2, 0) / (v.length - 1);
  };
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;

  it('answers a collecting experiment with each primary metric’s users and days still needed', async () => {
    const exp = await create('collecting-estimate', [
      { ...metric('revenue', 'revenue', 'welch_t', 'primary'), mde: 0.1 },
      metric('latency', 'latency', 'welch_t', 'guardrail'),
    ]);
    const rng = seeded(31);
    const sent: Array<{ type: string; user_id: string; value?: number }> = [];
    const timestamp = new Date().toISOString();
    for (let i = 0; i < 240; i++) {
      const base = { experiment_id: exp.id, user_id: `r${i}`, timestamp };
      sent.push({ ...base, event_id: `rx-${i}`, type: 'exposure' } as never);
      const value = Math.max(0, rng.normal(exp.arm(`r${i}`) === 'control' ? 50 : 55, 20));
      sent.push({
        ...base,
        event_id: `rv-${i}`,
        type: 'business_event',
        business_metric: 'revenue',
        value,
      } as never);
    }
    await ingestAll(h, org.secret, sent);
    // From the raw events: each exposed user's revenue is the one value it sent.
    const values = { control: [] as number[], treatment: [] as number[] };
    for (const e of sent)
      if (e.type === 'business_event')
        values[exp.arm(e.user_id) as 'control' | 'treatment'].push(e.value as number);
    const needed = Math.ceil(
      (Z ** 2 * (variance(values.control) + variance(values.treatment))) /
        (0.1 * Math.abs(mean(values.control))) ** 2,
    );
    // Every user arrived today: each arm grows by its users over the part of today elapsed.
    const daysAt = (at: number) => {
      const elapsed = (at - Date.parse(`${today()}T00:00:00Z`)) / 86_400_000;
      return Math.ceil(
        Math.max(
          ...[values.control, values.treatment].map(
            (v) => Math.max(0, needed - v.length) / (v.length / elapsed),
          ),
        ),
      );
    };
    const before = Date.now();
    const res = await get(`/v1/experiments/${exp.id}/results`);
    const after = Date.now();
    expect(res.statusCode).toBe(404);
    const body = res.json();
    expect(body.type).toBe('/problems/results-collecting');
    expect(body.primary_metrics).toHaveLength(1);
    const [estimate] = body.primary_metrics;
    expect(estimate).toMatchObject({
      metric: 'revenue',
      treatment: 'treatment',
      mde: 0.1,
      n_per_arm: { control: values.control.length, treatment: values.treatment.length },
      users_needed_per_arm: needed,
    });
    expect(needed).toBeGreaterThan(values.control.length);
    expect(estimate.days_to_decision).toBeGreaterThanOrEqual(daysAt(before));
    expect(estimate.days_to_decision).toBeLessThanOrEqual(daysAt(after));
    expect(body.detail).toContain(`revenue needs about ${needed} users per arm`);
  });

  it('gives the primary metrics of a keep_collecting run the same estimate, and guardrails none', async () => {
    const exp = await nightlyRunOf(
      'keep-collecting',
      900,
      { conversion: { control: 0.1, treatment: 0.1 }, latency: { control: 500, treatment: 500 } },
      { seed: 32, prefix: 'k' },
    );
    const body = (await get(`/v1/experiments/${exp.id}/results`)).json() as Results;
    expect(body.decision.recommendation).toBe('keep_collecting');
    const checkout = body.results['checkout::treatment'];
    expect(checkout?.mde).toBe(0.05);
    expect(checkout?.users_needed_per_arm).toBeGreaterThan(0);
    // A nightly day is whole: the 900 users arrived over one day.
    const n = checkout?.n_per_arm as Record<string, number>;
    const expectedDays = Math.ceil(
      Math.max(
        ...Object.values(n).map(
          (users) => Math.max(0, (checkout?.users_needed_per_arm as number) - users) / users,
        ),
      ),
    );
    expect(checkout?.days_to_decision).toBe(expectedDays);
    expect(body.results['latency::treatment']?.users_needed_per_arm).toBeUndefined();
  });
});
