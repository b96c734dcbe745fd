import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Draw } from '../../../../../packages/stats/test/support/generate.ts';
import {
  expectOfflineMatches,
  type OfflineCase,
  offlineCases,
  offlineOracle,
} from '../../../../../packages/stats/test/support/offline.ts';
import { type Harness, startHarness } from '../../support/harness.ts';

/**
 * The run's statistics through the HTTP API against scipy (ttest_rel, binomtest), statsmodels
 * (multipletests fdr_bh) and numpy, within 1e-9 relative. Generated data sets (mcnemar_exact,
 * paired_t with repeats, missing results, zero variance, margins) become a dataset, an
 * experiment with the case's variants, a run and uploaded results: `latency_ms` and `cost`
 * through the measured fields, every other scorer as a custom one. The server adds
 * `error_rate` (0 for every result), so the oracle gets it too.
 */
const REL = 1e-9;
const MEASURED = new Set(['latency_ms', 'cost']);

let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;

beforeAll(async () => {
  h = await startHarness();
  acme = await h.org('acme_offline_oracle');
});
afterAll(() => h.close());

const draw = new Draw(3517);
const cases = [...offlineCases(draw), ...offlineCases(draw, 2)];

/** The results to upload: value k of a (scorer, variant, item) list is repeat k. */
function rowsOf(c: OfflineCase) {
  const rows: Array<Record<string, unknown>> = [];
  for (const variant of c.variants) {
    for (const item of c.items) {
      const repeats = Math.max(
        0,
        ...c.scorers.map((s) => c.values[s.name]?.[variant]?.[item]?.length ?? 0),
      );
      for (let repeat = 0; repeat < repeats; repeat++) {
        const row: Record<string, unknown> = { item_id: item, variant, repeat, output: 'o' };
        const scores: Record<string, number> = {};
        for (const s of c.scorers) {
          const value = c.values[s.name]?.[variant]?.[item]?.[repeat];
          if (value === undefined) continue;
          if (MEASURED.has(s.name)) row[s.name] = value;
          else scores[s.name] = value;
        }
        if (Object.keys(scores).length > 0) row.scores = scores;
        rows.push(row);
      }
    }
  }
  return rows;
}

/** The case as the server sees it: plus error_rate, 0 for every uploaded result. */
function withErrorRate(c: OfflineCase, rows: Array<Record<string, unknown>>): OfflineCase {
  const errorRate: Record<string, Record<string, number[]>> = {};
  for (const row of rows) {
    const byItem = errorRate[row.variant as string] ?? {};
    errorRate[row.variant as string] = byItem;
    byItem[row.item_id as string] = [...(byItem[row.item_id as string] ?? []), 0];
  }
  return {
    ...c,
    scorers: [
      ...c.scorers,
      { name: 'error_rate', direction: 'decrease', margin: null, shape: 'binary' },
    ],
    values: { ...c.values, error_rate: errorRate },
  };
}

async function runThroughHttp(c: OfflineCase, index: number, rows: Array<Record<string, unknown>>) {
  const call = (options: Parameters<Harness['call']>[1]) => h.ingest(acme.secret, options);
  const ds = (
    await call({ method: 'POST', url: '/v1/datasets', payload: { name: `oracle-${index}` } })
  ).json().id;
  const items = c.items.map((id) => ({ id, input: `question ${id}` }));
  const up = await call({ method: 'POST', url: `/v1/datasets/${ds}/items`, payload: { items } });
  expect(up.json().errors).toEqual([]);
  const experiment = await h.experiment(acme.admin, {
    allocation: c.variants.map((variant) => ({ variant, weight: 1 })),
    variants: c.variants.map((key) => ({ key, prompt: `prompt of ${key}` })),
  });
  const scorers = c.scorers.map((s) => ({
    name: s.name,
    kind: MEASURED.has(s.name) ? s.name : 'custom',
    direction: s.direction,
    ...(s.margin === null ? {} : { non_inferiority_margin: s.margin }),
  }));
  const created = await call({
    method: 'POST',
    url: `/v1/experiments/${experiment}/offline-runs`,
    payload: { dataset_id: ds, repeats: c.repeats, scorers },
  });
  expect(created.statusCode, created.body).toBe(201);
  const run = created.json();
  expect(run.expected_results).toBe(c.items.length * c.variants.length * c.repeats);
  for (let i = 0; i < rows.length; i += 500) {
    const res = await call({
      method: 'POST',
      url: `/v1/offline-runs/${run.id}/results`,
      payload: { results: rows.slice(i, i + 500) },
    });
    expect(res.json()).toMatchObject({ accepted: Math.min(500, rows.length - i), errors: [] });
  }
  const done = await call({ method: 'POST', url: `/v1/offline-runs/${run.id}/complete` });
  expect(done.statusCode, done.body).toBe(200);
  return done.json();
}

describe('offline run statistics through HTTP against scipy, statsmodels and numpy', () => {
  const rows = cases.map(rowsOf);
  const reference = offlineOracle(cases.map((c, i) => withErrorRate(c, rows[i]!)));
  cases.forEach((c, i) => {
    it(c.name, async () => {
      const run = await runThroughHttp(c, i, rows[i]!);
      expect(run.status).toBe('complete');
      expect(run.coverage.received_results).toBe(rows[i]!.length);
      expect(run.coverage.missing_results).toBe(run.expected_results - rows[i]!.length);
      expectOfflineMatches(run, reference[i]!, REL, c.name);
    });
  });

  it('the cases cover both tests, zero variance, margins either way and flips', () => {
    const all = reference.flatMap((r) => Object.values(r.comparisons));
    expect(all.some((x) => x.test === 'mcnemar_exact' && x.p_value !== 1)).toBe(true);
    expect(all.some((x) => x.test === 'paired_t' && typeof x.p_value === 'number')).toBe(true);
    expect(all.some((x) => x.p_value === 0 && x.mdd === 0)).toBe(true);
    expect(all.some((x) => x.non_inferior === true)).toBe(true);
    expect(all.some((x) => x.non_inferior === false)).toBe(true);
    expect(
      reference.some((r) => Object.values(r.summary).some((s) => (s.flip_rate as number) > 0)),
    ).toBe(true);
  });
});
