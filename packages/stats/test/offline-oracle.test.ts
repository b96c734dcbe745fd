import { describe, expect, it } from 'vitest';
import { binomTestHalf, evaluateOffline, type OfflineValues } from '../src/index.ts';
import { Draw } from './support/generate.ts';
import { expectJsonSafe } from './support/json-safe.ts';
import {
  expectOfflineMatches,
  OFFLINE_ORACLE,
  type OfflineCase,
  offlineCases,
  offlineOracle,
} from './support/offline.ts';
import { runOracle } from './support/oracle.ts';

// Offline evaluation against scipy's ttest_rel and binomtest, statsmodels'
// multipletests(method="fdr_bh") and numpy for the non-determinism figures, on generated data
// sets: mcnemar_exact, paired_t with repeats, missing results, zero variance and margins.
// Tolerance: 1e-9 relative (1e-12 absolute for figures at 0).

const REL = 1e-9;

function valuesOf(c: OfflineCase): OfflineValues {
  return new Map(
    Object.entries(c.values).map(([scorer, byVariant]) => [
      scorer,
      new Map(
        Object.entries(byVariant).map(([variant, byItem]) => [
          variant,
          new Map(Object.entries(byItem)),
        ]),
      ),
    ]),
  );
}

const draw = new Draw(3535);
const cases = [...offlineCases(draw), ...offlineCases(draw, 3)];
const reference = offlineOracle(cases);

describe('offline evaluation against scipy, statsmodels and numpy', () => {
  cases.forEach((c, i) => {
    it(c.name, () => {
      const ours = evaluateOffline({
        scorers: c.scorers.map(({ name, direction, margin }) => ({ name, direction, margin })),
        variants: c.variants,
        repeats: c.repeats,
        values: valuesOf(c),
      });
      expectJsonSafe(ours);
      expectOfflineMatches(
        ours as unknown as Parameters<typeof expectOfflineMatches>[0],
        reference[i]!,
        REL,
        c.name,
      );
    });
  });

  it('covers both tests, zero variance, a margin that fails and non-determinism', () => {
    const all = reference.flatMap((r) => Object.values(r.comparisons));
    expect(all.some((c) => c.test === 'mcnemar_exact')).toBe(true);
    expect(all.some((c) => c.test === 'paired_t' && c.p_value !== null)).toBe(true);
    expect(all.some((c) => c.p_value === 0 && c.mdd === 0)).toBe(true);
    expect(all.some((c) => c.p_value === 1 && c.mdd === 0)).toBe(true);
    expect(all.some((c) => c.non_inferior === false)).toBe(true);
    expect(all.some((c) => c.non_inferior === true)).toBe(true);
    expect(all.some((c) => c.outcome === 'better')).toBe(true);
    expect(all.some((c) => c.outcome === 'worse')).toBe(true);
    expect(reference.some((r) => Object.values(r.gates).some((g) => !g.passed))).toBe(true);
    const summaries = reference.flatMap((r) => Object.values(r.summary));
    expect(summaries.some((s) => typeof s.flip_rate === 'number' && s.flip_rate > 0)).toBe(true);
  });
});

// Spawned while the file is collected, as the other oracle files do: no test timeout applies.
const pairs: Array<[number, number]> = [];
for (const n of [1, 2, 3, 7, 10, 25, 100, 501, 2000, 10000]) {
  for (const k of [0, 1, Math.floor(n / 3), Math.floor(n / 2), Math.ceil(n / 2), n - 1, n]) {
    if (k >= 0 && k <= n) pairs.push([k, n]);
  }
}
const binomReply = runOracle(
  pairs.map(([k, n]) => ({ kind: 'binomtest', k, n })),
  OFFLINE_ORACLE,
);

describe('binomTestHalf against scipy.stats.binomtest(k, n, 0.5)', () => {
  it('matches within 1e-9 relative, tiny tails included', () => {
    pairs.forEach(([k, n], i) => {
      const ref = (binomReply.results[i] as { p_value: number }).p_value;
      const ours = binomTestHalf(k, n);
      expect(
        Math.abs(ours - ref),
        `binomtest(${k}, ${n}): ours ${ours}, scipy ${ref}`,
      ).toBeLessThanOrEqual(REL * Math.abs(ref));
    });
  });
});
