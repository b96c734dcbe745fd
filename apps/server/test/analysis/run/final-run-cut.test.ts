import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestAll, metricDefinition, runNightlyFor, seeded } from '../../support/analysis-data.ts';
import { type Harness, startHarness } from '../../support/harness.ts';

/**
 * Two experiments alike in every way (salt, metrics, breakdown, the events before the stop),
 * stopped at the same instant. One also gets events stamped after the stop: later on the stop
 * day and on the next day, with a far larger effect. The final nightly run and a manual run
 * of each must answer the same, and their windows end at the stop. On the PostgreSQL pass the
 * event data is on shards, so the cut holds there too.
 */
const DAY_MS = 86_400_000;
const MINUTE = 60_000;
// Midday of a UTC day: minutes either side of the stop stay on its day.
let clock = Math.floor(Date.now() / DAY_MS) * DAY_MS + DAY_MS / 2;
let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;

beforeAll(async () => {
  h = await startHarness({}, { clock: { now: () => new Date(clock) } });
  acme = await h.org('lifecycle-cut');
});
afterAll(() => h.close());

const USERS = 400;
const METRICS = [
  metricDefinition('latency', 'latency', { method_default: 'welch_t' }),
  metricDefinition('p90-latency', 'latency', {
    method_default: 'welch_t',
    category: 'secondary',
    quantile: 0.9,
  }),
  metricDefinition('tokens', 'tokens', { method_default: 'mann_whitney', category: 'secondary' }),
  metricDefinition('checkout', 'conversion', {
    method_default: 'two_proportion_z',
    category: 'secondary',
  }),
];

/** Each user's exposure, model calls and checkout at `at`; `shape` sets a call's latency. */
function traffic(id: string, at: Date, prefix: string, shape: (arm: string) => number) {
  const rng = seeded(7);
  const events: object[] = [];
  // Event ids are the org's: each experiment's are its own.
  const tag = `${id}-${prefix}`;
  for (let u = 0; u < USERS; u++) {
    const variant = u % 2 === 0 ? 'control' : 'treatment';
    const base = { experiment_id: id, user_id: `u${u}`, variant, timestamp: at.toISOString() };
    events.push({ ...base, event_id: `${tag}-x-${u}`, type: 'exposure' });
    for (let c = 0; c < 1 + (u % 3); c++)
      events.push({
        ...base,
        event_id: `${tag}-m-${u}-${c}`,
        type: 'model_call',
        latency_ms: Math.round(Math.max(1, rng.normal(shape(variant), 60))),
        input_tokens: 10 + (u % 7),
        output_tokens: 20 + c,
        model: u % 4 === 0 ? 'small' : 'large',
      });
    if (rng.next() < (variant === 'treatment' ? 0.35 : 0.3))
      events.push({
        ...base,
        event_id: `${tag}-b-${u}`,
        type: 'business_event',
        business_metric: 'checkout',
        value: 1,
      });
  }
  return events;
}

const create = (name: string) =>
  h.experiment(acme.admin, {
    name,
    salt: 'cut-salt',
    bucket_count: 1000,
    allocation: [
      { variant: 'control', weight: 50 },
      { variant: 'treatment', weight: 50 },
    ],
    variants: [
      { key: 'control', prompt: 'p', variables: {} },
      { key: 'treatment', prompt: 'q', variables: {} },
    ],
    metrics: METRICS,
    dimensions: ['model'],
  });

const stop = async (id: string) => {
  const res = await h.call(acme.admin, {
    method: 'POST',
    url: `/v1/experiments/${id}/stop`,
    payload: { conclusion: 'ship', variant: 'treatment' },
  });
  expect(res.statusCode).toBe(200);
  return res.json().stop.stopped_at as string;
};

/** What a run found, less what names the experiment or the moment it was computed. */
function findings(body: Record<string, unknown>) {
  const { experiment_id: _id, name: _name, computed_at: _at, label: _label, ...kept } = body;
  return kept;
}

const results = async (id: string, query = '') => {
  const res = await h.call(acme.admin, {
    method: 'GET',
    url: `/v1/experiments/${id}/results${query}`,
  });
  expect(res.statusCode).toBe(200);
  return res.json();
};

describe('events stamped after the stop', () => {
  const ids = { plain: '', extra: '' };
  let stoppedAt = '';

  beforeAll(async () => {
    ids.plain = await create('cut-plain');
    ids.extra = await create('cut-extra');
    const start = new Date(clock + MINUTE);
    const latency = (arm: string) => (arm === 'treatment' ? 480 : 500);
    await ingestAll(h, acme.secret, [
      ...traffic(ids.plain, start, 'before', latency),
      ...traffic(ids.extra, start, 'before', latency),
    ]);
    clock += 10 * MINUTE;
    stoppedAt = await stop(ids.plain);
    expect(await stop(ids.extra)).toBe(stoppedAt);
    // Later on the stop day, then the next day: accepted, and never analysed.
    const flipped = (arm: string) => (arm === 'treatment' ? 100 : 5000);
    clock += 10 * MINUTE;
    await ingestAll(h, acme.secret, traffic(ids.extra, new Date(clock - MINUTE), 'day', flipped));
    clock += DAY_MS;
    await ingestAll(h, acme.secret, traffic(ids.extra, new Date(clock - MINUTE), 'next', flipped));
  }, 300_000);

  it('change nothing in the final nightly run, whose window ends at the stop', async () => {
    const day = stoppedAt.slice(0, 10);
    const run = await runNightlyFor(h, day);
    for (const id of [ids.plain, ids.extra])
      expect(run.experiments).toContainEqual(expect.objectContaining({ experiment_id: id }));
    const plain = await results(ids.plain);
    const extra = await results(ids.extra);
    expect(extra).toMatchObject({ final: true, window: { end: stoppedAt } });
    expect(extra.arms.control.users).toBe(USERS / 2);
    expect(findings(extra)).toEqual(findings(plain));
  });

  it('change nothing in a manual run or its breakdown', async () => {
    const manual = async (id: string) => {
      const res = await h.call(acme.admin, {
        method: 'POST',
        url: `/v1/experiments/${id}/analyze?dimension=model`,
      });
      expect(res.statusCode).toBe(200);
      return res.json();
    };
    const plain = await manual(ids.plain);
    const extra = await manual(ids.extra);
    expect(extra.window.end).toBe(stoppedAt);
    expect(findings(extra)).toEqual(findings(plain));
  });
});
