import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../support/harness.ts';

/**
 * A metric's `cap` on the config routes: the shapes refused with a pointer and nothing stored,
 * the default a new latency, tokens or cost metric gets, `cap: null`, and metrics stored before
 * caps existed, which an update that leaves them alone keeps uncapped.
 */
let h: Harness;
let org: Awaited<ReturnType<Harness['org']>>;

beforeAll(async () => {
  h = await startHarness();
  org = await h.org('caps-org');
});
afterAll(() => h.close());

const metric = (name: string, kind: string, extra: object = {}) => ({
  name,
  kind,
  category: 'primary',
  method_default: kind === 'conversion' ? 'two_proportion_z' : 'welch_t',
  metric_version: 1,
  shared_org_wide: false,
  ...extra,
});
const config = (name: string, metrics: object[]) => ({
  name,
  salt: `${name}-salt`,
  bucket_count: 100,
  allocation: [
    { variant: 'control', weight: 50 },
    { variant: 'treatment', weight: 50 },
  ],
  metrics,
});
const post = (body: object) =>
  h.call(org.admin, { method: 'POST', url: '/v1/experiments', payload: body });

describe('a metric’s cap', () => {
  it('refuses a cap a metric cannot have, with the field’s pointer, and stores nothing', async () => {
    const cases: Array<[object, string, string]> = [
      [metric('c', 'conversion', { cap: { value: 1 } }), '#/metrics/0/cap', 'not conversion'],
      [
        metric('p', 'latency', { quantile: 0.9, cap: { percentile: 0.99 } }),
        '#/metrics/0/cap',
        'quantile',
      ],
      [metric('r', 'revenue', { cap: {} }), '#/metrics/0/cap', 'either percentile or value'],
      [
        metric('r', 'revenue', { cap: { percentile: 0.9, value: 5 } }),
        '#/metrics/0/cap',
        'not both',
      ],
      [
        metric('r', 'revenue', { cap: { percentile: 0.9, lower: 0 } }),
        '#/metrics/0/cap/lower',
        'lower_percentile',
      ],
      [
        metric('r', 'revenue', { cap: { value: 9, lower_percentile: 0.1 } }),
        '#/metrics/0/cap/lower_percentile',
        'beside value use lower',
      ],
      [
        metric('r', 'revenue', { cap: { value: 9, lower: 9 } }),
        '#/metrics/0/cap/lower',
        'must be below value (9)',
      ],
      [
        metric('r', 'revenue', { cap: { percentile: 0.5, lower_percentile: 0.6 } }),
        '#/metrics/0/cap/lower_percentile',
        'must be below percentile (0.5)',
      ],
    ];
    for (const [bad, pointer, detail] of cases) {
      const res = await post(config('bad-cap', [bad]));
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      const errors = res.json().errors as Array<{ pointer: string; detail: string }>;
      expect(errors).toHaveLength(1);
      expect(errors[0]?.pointer).toBe(pointer);
      expect(errors[0]?.detail).toContain(detail);
    }
    for (const percentile of [0, 1, 1.5])
      expect(
        (await post(config('bad-cap', [metric('r', 'revenue', { cap: { percentile } })])))
          .statusCode,
      ).toBe(400);
    const list = await h.call(org.admin, { method: 'GET', url: '/v1/experiments' });
    expect(JSON.stringify(list.json())).not.toContain('bad-cap');
  });

  it('gives a new latency, tokens or cost metric the 99.9th percentile unless it says null', async () => {
    const res = await post(
      config('defaults', [
        metric('latency', 'latency'),
        metric('tokens', 'tokens'),
        metric('cost', 'cost'),
        metric('p95', 'latency', { quantile: 0.95 }),
        metric('revenue', 'revenue'),
        metric('checkout', 'conversion'),
        metric('no-cap', 'latency', { cap: null }),
        metric('own', 'cost', { cap: { value: 2.5, lower: 0 } }),
      ]),
    );
    expect(res.statusCode).toBe(201);
    const caps = Object.fromEntries(
      (res.json().metrics as Array<{ name: string; cap?: unknown }>).map((m) => [
        m.name,
        'cap' in m ? m.cap : 'absent',
      ]),
    );
    expect(caps).toEqual({
      latency: { percentile: 0.999 },
      tokens: { percentile: 0.999 },
      cost: { percentile: 0.999 },
      p95: 'absent',
      revenue: 'absent',
      checkout: 'absent',
      'no-cap': null,
      own: { value: 2.5, lower: 0 },
    });
  });

  it('keeps a metric stored before caps uncapped through an update, and caps one added', async () => {
    const created = await post(config('older', [metric('latency', 'latency')]));
    const id = created.json().id as string;
    // As the metric was stored before caps existed: no `cap` at all.
    await h.ctx.db.execute(
      sql`update experiment_versions set config = jsonb_set(config, '{metrics,0}', (config->'metrics'->0) - 'cap')
        where experiment_id = ${id}::uuid`,
    );
    const put = await h.call(org.admin, {
      method: 'PUT',
      url: `/v1/experiments/${id}`,
      payload: {
        metrics: [metric('latency', 'latency'), metric('tokens', 'tokens')],
      },
    });
    expect(put.statusCode).toBe(200);
    const [latency, tokens] = put.json().metrics as Array<{ cap?: unknown }>;
    expect(latency && 'cap' in latency).toBe(false);
    expect(tokens?.cap).toEqual({ percentile: 0.999 });
    // A metric that states its cap again changes it; one that states nothing keeps it.
    const again = await h.call(org.admin, {
      method: 'PUT',
      url: `/v1/experiments/${id}`,
      payload: {
        metrics: [
          metric('latency', 'latency', { cap: { percentile: 0.99 } }),
          metric('tokens', 'tokens'),
        ],
      },
    });
    expect(again.statusCode).toBe(200);
    expect(again.json().metrics.map((m: { cap?: unknown }) => m.cap)).toEqual([
      { percentile: 0.99 },
      { percentile: 0.999 },
    ]);
  });
});
