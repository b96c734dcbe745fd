import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_COLUMNS, ExportRowSchema } from '../../src/analysis/results/results-export.ts';
import type { Results } from '../../src/analysis/results/results-schema.ts';
import { importAll, ingestAll, runNightlyFor, seeded, today } from '../support/analysis-data.ts';
import { type Harness, startHarness } from '../support/harness.ts';

/**
 * CUPED, sequential runs and export through the HTTP API: CUPED with a real pre-period covariate (history imported for
 * the days before the experiments existed), the always-valid block of manual runs, and the
 * export whose CSV, re-read by a CSV library, equals its JSON.
 */
let h: Harness;
let org: Awaited<ReturnType<Harness['org']>>;

beforeAll(async () => {
  h = await startHarness();
  org = await h.org('cuped-org');
});
afterAll(() => h.close());

const DAY_MS = 86_400_000;
const daysAgo = (n: number) => new Date(Date.now() - n * DAY_MS).toISOString();

const revenue = (extra: object = {}) => ({
  name: 'revenue',
  kind: 'revenue',
  category: 'primary',
  method_default: 'welch_t',
  metric_version: 1,
  shared_org_wide: false,
  ...extra,
});

const create = (name: string, metrics: object[]) =>
  h.experiment(org.admin, { name, salt: `${name}-salt`, metrics });

const get = (url: string) => h.call(org.admin, { method: 'GET', url });

describe('CUPED, sequential results and the export', () => {
  const USERS = 800;
  let cuped: string;
  let shared: string;
  let unshared: string;
  let withPrePeriod = 0;

  beforeAll(async () => {
    cuped = await create('cuped-exp', [revenue({ cuped: { covariate_days: 14 } })]);
    shared = await create('shared-exp', [
      revenue({ shared_org_wide: true, cuped: { covariate_days: 14 } }),
    ]);
    unshared = await create('unshared-exp', [revenue({ cuped: { covariate_days: 14 } })]);
    const rng = seeded(16);
    const live: object[] = [];
    const history: object[] = [];
    const now = new Date().toISOString();
    for (let u = 0; u < USERS; u++) {
      const user = `c${u}`;
      const habit = Math.max(0, rng.normal(50, 20)); // what the user spends anyway
      const hasHistory = u % 7 !== 0;
      if (hasHistory) {
        withPrePeriod += 1;
        history.push({
          event_id: `pre-${u}`,
          type: 'business_event',
          experiment_id: cuped,
          user_id: user,
          timestamp: daysAgo(5),
          business_metric: 'revenue',
          value: habit,
        });
      } else {
        // Outside the 14-day pre-period: no covariate for this user.
        history.push({
          event_id: `old-${u}`,
          type: 'business_event',
          experiment_id: cuped,
          user_id: user,
          timestamp: daysAgo(30),
          business_metric: 'revenue',
          value: 1000,
        });
      }
      const spend = habit + rng.normal(0, 6);
      for (const experiment of [cuped, shared, unshared]) {
        live.push({
          event_id: `x-${experiment}-${u}`,
          type: 'exposure',
          experiment_id: experiment,
          user_id: user,
          timestamp: now,
        });
        live.push({
          event_id: `r-${experiment}-${u}`,
          type: 'business_event',
          experiment_id: experiment,
          user_id: user,
          timestamp: now,
          business_metric: 'revenue',
          value: spend,
        });
      }
    }
    await importAll(h, org.secret, history);
    await ingestAll(h, org.secret, live);
    const summary = await runNightlyFor(h, today());
    expect(summary.experiments.map((e: { status: string }) => e.status)).toEqual([
      'computed',
      'computed',
      'computed',
    ]);
  });

  it('refuses CUPED on a kind it cannot adjust and a pre-period out of range', async () => {
    const conversion = revenue({
      name: 'checkout',
      kind: 'conversion',
      method_default: 'two_proportion_z',
      cuped: { covariate_days: 7 },
    });
    for (const [metric, pointer] of [
      [conversion, '#/metrics/0/cuped'],
      [revenue({ cuped: { covariate_days: 0 } }), '/metrics/0/cuped/covariate_days'],
      [revenue({ cuped: { covariate_days: 91 } }), '/metrics/0/cuped/covariate_days'],
      [revenue({ cuped: {} }), '/metrics/0/cuped'],
    ] as const) {
      const res = await h.call(org.admin, {
        method: 'POST',
        url: '/v1/experiments',
        payload: {
          name: 'bad-cuped',
          salt: 's',
          bucket_count: 10,
          allocation: [{ variant: 'a', weight: 100 }],
          metrics: [metric],
        },
      });
      expect(res.statusCode).toBe(400);
      expect(JSON.stringify(res.json())).toContain(pointer);
    }
  });

  it('narrows the interval with a real pre-period covariate and reports theta, reduction and coverage', async () => {
    const body = (await get(`/v1/experiments/${cuped}/results`)).json() as Results;
    const r = body.results['revenue::treatment'];
    expect(r?.ok).toBe(true);
    expect(r?.cuped?.covariate_coverage).toBeCloseTo(withPrePeriod / USERS, 12);
    expect(r?.cuped?.theta).toBeGreaterThan(0.5);
    // A seventh of the users have no pre-period (covariate 0), which limits the reduction.
    expect(r?.cuped?.variance_reduction).toBeGreaterThan(0.3);
    const u = r?.unadjusted;
    const width = (r?.ci_high as number) - (r?.ci_low as number);
    const unadjustedWidth = (u?.ci_high as number) - (u?.ci_low as number);
    expect(width).toBeLessThan(0.85 * unadjustedWidth);
    expect(r?.sequential).toBeNull();
  });

  it('reads the pre-period of the org’s other experiments only for a shared_org_wide metric', async () => {
    const sharedRun = (await get(`/v1/experiments/${shared}/results`)).json() as Results;
    const unsharedRun = (await get(`/v1/experiments/${unshared}/results`)).json() as Results;
    expect(sharedRun.results['revenue::treatment']?.cuped?.covariate_coverage).toBeCloseTo(
      withPrePeriod / USERS,
      12,
    );
    const alone = unsharedRun.results['revenue::treatment']?.cuped;
    expect(alone?.covariate_coverage).toBe(0);
    expect(alone?.theta).toBe(0);
    expect(alone?.variance_reduction).toBeCloseTo(0, 12);
  });

  it('gives a manual run the always-valid block and decides on its corrected p-value', async () => {
    const res = await h.call(org.admin, {
      method: 'POST',
      url: `/v1/experiments/${cuped}/analyze`,
    });
    expect(res.statusCode).toBe(200);
    const run = res.json() as Results & { status: string };
    expect(run.status).toBe('computed');
    expect(run.preliminary).toBe(true);
    expect(run.available_days).toContain(run.computed_for);
    const r = run.results['revenue::treatment'];
    const seq = r?.sequential;
    expect(seq).toBeTruthy();
    expect(seq?.p_value).toBeGreaterThanOrEqual(r?.p_value as number);
    expect((seq?.ci_high as number) - (seq?.ci_low as number)).toBeGreaterThan(
      (r?.ci_high as number) - (r?.ci_low as number),
    );
    expect(r?.significant).toBe((r?.ok as boolean) && (seq?.p_value_fdr as number) < 0.05);
    // The run the route answered is the run stored.
    const stored = (
      await get(`/v1/experiments/${cuped}/results?day=${encodeURIComponent(run.computed_for)}`)
    ).json();
    expect(stored).toEqual({ ...run, status: undefined, available_days: stored.available_days });
  });

  it('exports the run as JSON and as RFC 4180 CSV that re-reads to the same rows', async () => {
    const json = await get(`/v1/experiments/${cuped}/results/export?day=${today()}&format=json`);
    expect(json.statusCode).toBe(200);
    const rows = json.json() as Array<Record<string, unknown>>;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      run_label: today(),
      run_kind: 'nightly',
      metric: 'revenue',
      treatment: 'treatment',
      srm_halted: false,
    });
    expect(Object.keys(rows[0] as object)).toEqual(EXPORT_COLUMNS);
    const csv = await get(`/v1/experiments/${cuped}/results/export?day=${today()}&format=csv`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.headers['content-disposition']).toBe(
      `attachment; filename="cuped-exp-${today()}.csv"`,
    );
    expect(csv.body).toContain('\r\n');
    const reread = parse(csv.body, { columns: true, record_delimiter: '\r\n' }) as Array<
      Record<string, string>
    >;
    expect(reread.map(typed)).toEqual(rows);
  });

  it('exports a manual run with its sequential columns, and refuses an unknown format', async () => {
    const manual = (await get(`/v1/experiments/${cuped}/results`)).json() as Results;
    expect(manual.preliminary).toBe(true);
    const rows = (await get(`/v1/experiments/${cuped}/results/export?format=json`)).json();
    expect(rows[0].run_label).toBe(manual.computed_for);
    expect(rows[0].sequential_p_value_fdr).toBe(
      manual.results['revenue::treatment']?.sequential?.p_value_fdr,
    );
    const csv = await get(`/v1/experiments/${cuped}/results/export?format=csv`);
    expect(
      (parse(csv.body, { columns: true }) as Array<Record<string, string>>).map(typed),
    ).toEqual(rows);
    const bad = await get(`/v1/experiments/${cuped}/results/export?format=xlsx`);
    expect(bad.statusCode).toBe(400);
  });
});

/** A CSV record typed by the export schema: numbers, booleans, and the empty field as null. */
function typed(record: Record<string, string>): Record<string, unknown> {
  const props = ExportRowSchema.properties as Record<
    string,
    { type?: string; anyOf?: Array<{ type: string }> }
  >;
  return Object.fromEntries(
    Object.entries(record).map(([column, text]) => {
      const schema = props[column];
      const nullable = schema?.anyOf !== undefined;
      const type = schema?.type ?? schema?.anyOf?.[0]?.type;
      if (nullable && text === '') return [column, null];
      if (type === 'number' || type === 'integer') return [column, Number(text)];
      if (type === 'boolean') return [column, text === 'true'];
      return [column, text];
    }),
  );
}
