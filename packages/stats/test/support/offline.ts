import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { Draw } from './generate.ts';
import { expectNear } from './near.ts';
import { runOracle } from './oracle.ts';

export const OFFLINE_ORACLE = fileURLToPath(
  new URL('../../oracle/offline_oracle.py', import.meta.url),
);

export interface OfflineCaseScorer {
  name: string;
  direction: 'increase' | 'decrease';
  margin: number | null;
  /** How the values are drawn: 0/1, continuous, or a constant shift (zero variance). */
  shape: 'binary' | 'continuous' | 'shifted' | 'identical';
}

/** One generated data set: per scorer, per variant, per item, the values of the repeats. */
export interface OfflineCase {
  name: string;
  repeats: number;
  variants: string[];
  items: string[];
  scorers: OfflineCaseScorer[];
  values: Record<string, Record<string, Record<string, number[]>>>;
}

/**
 * A data set of `items` items, `repeats` repeats and the given scorers; a share `missing` of
 * the (item, variant, repeat) results is dropped, as a run with missing results has them.
 * Treatments get a per-variant lift so some comparisons come out better, some worse.
 */
export function offlineCase(
  draw: Draw,
  options: {
    name: string;
    items: number;
    repeats: number;
    variants: number;
    scorers: OfflineCaseScorer[];
    missing: number;
  },
): OfflineCase {
  const variants = Array.from({ length: options.variants }, (_, v) => `v${v}`);
  const items = Array.from(
    { length: options.items },
    (_, i) => `item-${String(i).padStart(4, '0')}`,
  );
  const values: OfflineCase['values'] = {};
  const itemLevel = items.map(() => draw.normal(0, 1));
  for (const scorer of options.scorers) {
    const byVariant: Record<string, Record<string, number[]>> = {};
    variants.forEach((variant, v) => {
      const lift = v === 0 ? 0 : draw.pick([-0.6, -0.2, 0, 0.3, 0.8]);
      const byItem: Record<string, number[]> = {};
      items.forEach((id, i) => {
        const ys: number[] = [];
        for (let r = 0; r < options.repeats; r++) {
          if (draw.uniform() < options.missing) continue;
          const level = itemLevel[i] as number;
          if (scorer.shape === 'binary') {
            const p = 1 / (1 + Math.exp(-(level + lift)));
            ys.push(draw.uniform() < p ? 1 : 0);
          } else if (scorer.shape === 'continuous') {
            ys.push(100 + 20 * level + 10 * lift + draw.normal(0, 5));
          } else if (scorer.shape === 'shifted') {
            ys.push(Math.round(10 * level) / 4 + (v === 0 ? 0 : 0.5));
          } else {
            ys.push(Math.round(10 * level) / 4);
          }
        }
        if (ys.length > 0) byItem[id] = ys;
      });
      byVariant[variant] = byItem;
    });
    values[scorer.name] = byVariant;
  }
  return {
    name: options.name,
    repeats: options.repeats,
    variants,
    items,
    scorers: options.scorers,
    values,
  };
}

export type OracleOffline = {
  comparisons: Record<string, Record<string, unknown>>;
  summary: Record<string, Record<string, unknown>>;
  gates: Record<string, { passed: boolean; failing: string[] }>;
};

/** scipy/statsmodels/numpy's figures for each case (one Python process for all). */
export function offlineOracle(cases: readonly OfflineCase[]): OracleOffline[] {
  const reply = runOracle(
    cases.map((c) => ({
      kind: 'offline',
      repeats: c.repeats,
      variants: c.variants,
      scorers: c.scorers.map(({ name, direction, margin }) => ({ name, direction, margin })),
      values: c.values,
    })),
    OFFLINE_ORACLE,
  );
  return reply.results as unknown as OracleOffline[];
}

const EXACT = [
  'n_items',
  'test',
  'improved_items',
  'regressed_items',
  'tied_items',
  'items_needed',
  'significant',
  'outcome',
  'non_inferior',
] as const;
const REAL = [
  'mean_baseline',
  'mean_treatment',
  'mean_difference',
  'relative_difference',
  'ci_low',
  'ci_high',
  'p_value',
  'p_value_fdr',
  'mdd',
] as const;

/** A real figure: null where the oracle has null, else within `rel` (and 1e-12 absolute). */
function expectReal(ours: unknown, ref: unknown, rel: number, what: string) {
  if (ref === null) {
    expect(ours, what).toBeNull();
    return;
  }
  expect(typeof ours, `${what}: ours ${String(ours)}, reference ${String(ref)}`).toBe('number');
  expectNear(ours as number, ref, rel, 1e-12, what);
}

/**
 * Ours (the run's result as served, or evaluateOffline's) against the oracle: the same keys,
 * every real figure within `rel`, every count, test name, outcome and gate exactly.
 */
export function expectOfflineMatches(
  ours: {
    comparisons: Record<string, Record<string, unknown>>;
    summary: Record<string, Record<string, unknown>>;
    gates: Record<string, { passed: boolean; reasons: string[] }>;
  },
  ref: OracleOffline,
  rel: number,
  name: string,
): void {
  expect(Object.keys(ours.comparisons).sort(), `${name}: comparisons`).toEqual(
    Object.keys(ref.comparisons).sort(),
  );
  for (const [key, r] of Object.entries(ref.comparisons)) {
    const o = ours.comparisons[key] as Record<string, unknown>;
    for (const field of EXACT) expect(o[field], `${name} ${key}.${field}`).toEqual(r[field]);
    for (const field of REAL) expectReal(o[field], r[field], rel, `${name} ${key}.${field}`);
  }
  expect(Object.keys(ours.summary).sort(), `${name}: summary`).toEqual(
    Object.keys(ref.summary).sort(),
  );
  for (const [key, r] of Object.entries(ref.summary)) {
    const o = ours.summary[key] as Record<string, unknown>;
    expect(o.n_items, `${name} summary ${key}.n_items`).toBe(r.n_items);
    expect(o.unstable_items, `${name} summary ${key}.unstable_items`).toEqual(r.unstable_items);
    for (const field of ['sd_within_items', 'sd_between_items', 'flip_rate', 'pass_all']) {
      expectReal(o[field], r[field], rel, `${name} summary ${key}.${field}`);
    }
  }
  expect(Object.keys(ours.gates).sort(), `${name}: gates`).toEqual(Object.keys(ref.gates).sort());
  for (const [treatment, r] of Object.entries(ref.gates)) {
    const gate = ours.gates[treatment] as { passed: boolean; reasons: string[] };
    expect(gate.passed, `${name} gate ${treatment}`).toBe(r.passed);
    for (const scorer of r.failing) {
      expect(
        gate.reasons.some((reason) => reason.startsWith(`${scorer} `)),
        `${name} gate ${treatment} names ${scorer}: ${gate.reasons.join('; ')}`,
      ).toBe(true);
    }
    expect(gate.reasons.length >= r.failing.length, `${name} gate ${treatment}`).toBe(true);
  }
}

/** The cases every offline oracle test covers (the stats test and the HTTP test alike). */
export function offlineCases(draw: Draw, scale = 1): OfflineCase[] {
  const n = (k: number) => Math.max(3, Math.round(k * scale));
  const binary = (name: string, margin: number | null = null): OfflineCaseScorer => ({
    name,
    direction: 'increase',
    margin,
    shape: 'binary',
  });
  return [
    offlineCase(draw, {
      name: 'mcnemar_exact, one repeat, three variants',
      items: n(120),
      repeats: 1,
      variants: 3,
      scorers: [binary('exact_match'), binary('contains', 0.05)],
      missing: 0,
    }),
    offlineCase(draw, {
      name: 'paired_t with repeats and missing results, a margin on latency',
      items: n(60),
      repeats: 3,
      variants: 3,
      scorers: [
        binary('exact_match', 0.1),
        { name: 'latency_ms', direction: 'decrease', margin: 15, shape: 'continuous' },
        { name: 'quality', direction: 'increase', margin: null, shape: 'continuous' },
      ],
      missing: 0.15,
    }),
    offlineCase(draw, {
      name: 'zero variance: a constant shift and an identical variant',
      items: n(25),
      repeats: 1,
      variants: 2,
      scorers: [
        { name: 'shifted', direction: 'increase', margin: null, shape: 'shifted' },
        { name: 'identical', direction: 'decrease', margin: 1, shape: 'identical' },
        binary('exact_match'),
      ],
      missing: 0,
    }),
    offlineCase(draw, {
      name: 'few items, many missing',
      items: 4,
      repeats: 2,
      variants: 2,
      scorers: [
        binary('exact_match', 0.2),
        { name: 'cost', direction: 'decrease', margin: null, shape: 'continuous' },
      ],
      missing: 0.5,
    }),
  ];
}
