import { benjaminiHochberg } from './bh.ts';
import { SIGNIFICANCE_LEVEL } from './decisions.ts';
import { type NonDeterminism, nonDeterminism } from './non-determinism.ts';
import {
  type Direction,
  NO_FIGURES,
  type PairedComparison,
  type PairedItem,
  pairedComparison,
} from './paired-comparison.ts';

export interface OfflineScorer {
  name: string;
  direction: Direction;
  /** The non-inferiority margin m, in the scorer's units; null when none is set. */
  margin: number | null;
}

/** y(v,i,r): per scorer, per variant, per item, the values of the repeats that have one. */
export type OfflineValues = ReadonlyMap<
  string,
  ReadonlyMap<string, ReadonlyMap<string, readonly number[]>>
>;

export interface OfflineInput {
  scorers: readonly OfflineScorer[];
  /** The variants compared; the first is the baseline. */
  variants: readonly string[];
  repeats: number;
  values: OfflineValues;
}

export type Outcome = 'better' | 'worse' | 'inconclusive';

export interface OfflineComparison extends PairedComparison {
  scorer: string;
  treatment: string;
  baseline: string;
  direction: Direction;
  p_value_fdr: number | null;
  significant: boolean;
  outcome: Outcome;
  non_inferiority_margin: number | null;
  non_inferior: boolean | null;
}

export interface NonDeterminismEntry extends NonDeterminism {
  scorer: string;
  variant: string;
}

export interface Gate {
  passed: boolean;
  reasons: string[];
}

export interface OfflineEvaluation {
  /** Keyed `<scorer>::<treatment>`. */
  comparisons: Record<string, OfflineComparison>;
  /** Keyed `<scorer>::<variant>`; empty when the run has fewer than two repeats. */
  summary: Record<string, NonDeterminismEntry>;
  /** Keyed by treatment. */
  gates: Record<string, Gate>;
}

/** y(v,i): the mean of an item's values over the repeats that have one. */
export function itemMeans(
  values: ReadonlyMap<string, readonly number[]> | undefined,
): Map<string, number> {
  const out = new Map<string, number>();
  if (values === undefined) return out;
  for (const [id, ys] of values) {
    if (ys.length === 0) continue;
    let s = 0;
    for (const y of ys) s += y;
    out.set(id, s / ys.length);
  }
  return out;
}

const byId = (a: PairedItem, b: PairedItem) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Every treatment against the baseline on every scorer, then Benjamini–Hochberg over all the
 * run's comparisons that have a p-value (those with n < 2 have none and stay out of the
 * family: their p_value_fdr is null). significant = p_value_fdr < 0.05; the outcome is
 * `better` or `worse` by the sign of mean(d) against the direction when significant,
 * `inconclusive` otherwise. non_inferior (margin m): ci_low > −m for `increase`, ci_high < m
 * for `decrease`; null without a margin, false with a margin but no interval. A treatment's
 * gate passes when none of its comparisons is `worse`, every scorer with a margin is
 * non-inferior and every comparison's figures are finite (see finiteComparison).
 */
export function evaluateOffline(input: OfflineInput): OfflineEvaluation {
  const [baseline, ...treatments] = input.variants;
  const comparisons: Record<string, OfflineComparison> = {};
  const summary: Record<string, NonDeterminismEntry> = {};
  const gates: Record<string, Gate> = {};
  if (baseline === undefined) return { comparisons, summary, gates };
  const list: OfflineComparison[] = [];
  const nonFinite = new Set<string>();
  for (const scorer of input.scorers) {
    const byVariant = input.values.get(scorer.name);
    const base = itemMeans(byVariant?.get(baseline));
    for (const treatment of treatments) {
      const treated = itemMeans(byVariant?.get(treatment));
      const items: PairedItem[] = [];
      for (const [id, y] of treated) {
        const c = base.get(id);
        if (c !== undefined) items.push({ id, baseline: c, treatment: y });
      }
      items.sort(byId);
      const { comparison: paired, finite } = finiteComparison(
        pairedComparison(items, scorer.direction, input.repeats),
      );
      if (!finite) nonFinite.add(`${scorer.name}::${treatment}`);
      const comparison: OfflineComparison = {
        scorer: scorer.name,
        treatment,
        baseline,
        direction: scorer.direction,
        ...paired,
        p_value_fdr: null,
        significant: false,
        outcome: 'inconclusive',
        non_inferiority_margin: scorer.margin,
        non_inferior: nonInferior(paired, scorer),
      };
      comparisons[`${scorer.name}::${treatment}`] = comparison;
      list.push(comparison);
    }
    if (input.repeats >= 2) {
      for (const variant of input.variants) {
        summary[`${scorer.name}::${variant}`] = {
          scorer: scorer.name,
          variant,
          ...finiteOrNull(nonDeterminism(byVariant?.get(variant) ?? new Map())),
        };
      }
    }
  }
  adjustAcross(list);
  for (const treatment of treatments) gates[treatment] = gateOf(treatment, list, nonFinite);
  return { comparisons, summary, gates };
}

/** Benjamini–Hochberg across every tested comparison, then each one's significance and outcome. */
function adjustAcross(list: OfflineComparison[]): void {
  const tested = list.filter((c) => c.p_value !== null);
  const adjusted = benjaminiHochberg(tested.map((c) => c.p_value as number));
  tested.forEach((c, i) => {
    const q = adjusted[i] as number;
    c.p_value_fdr = q;
    c.significant = q < SIGNIFICANCE_LEVEL;
    const md = c.mean_difference ?? 0;
    const signed = c.direction === 'increase' ? md : -md;
    if (c.significant && signed !== 0) c.outcome = signed > 0 ? 'better' : 'worse';
  });
}

/**
 * A treatment passes when every scorer's statistics are finite, none is worse and each margin
 * is shown non-inferior.
 */
function gateOf(
  treatment: string,
  list: readonly OfflineComparison[],
  nonFinite: ReadonlySet<string>,
): Gate {
  const reasons: string[] = [];
  for (const c of list) {
    if (c.treatment !== treatment) continue;
    if (nonFinite.has(`${c.scorer}::${treatment}`))
      reasons.push(`${c.scorer} cannot be compared: its statistics overflow`);
    if (c.outcome === 'worse') reasons.push(`${c.scorer} is worse than the baseline`);
    if (c.non_inferiority_margin !== null && c.non_inferior !== true) {
      reasons.push(
        `${c.scorer} is not shown non-inferior within the margin ${c.non_inferiority_margin}`,
      );
    }
  }
  return { passed: reasons.length === 0, reasons };
}

/** The record with every non-finite number replaced by null. */
function finiteOrNull<T extends object>(record: T): T {
  const out = { ...record } as Record<string, unknown>;
  for (const [k, v] of Object.entries(out)) {
    if (typeof v === 'number' && !Number.isFinite(v)) out[k] = null;
  }
  return out as T;
}

/**
 * A comparison whose figures overflow (values near the largest double, or non-finite ones)
 * keeps its counts; its figures become null (so it leaves the FDR family) and `finite` is false,
 * which fails its treatment's gate: a statistic that is not a number never passes a gate.
 */
function finiteComparison(c: PairedComparison): { comparison: PairedComparison; finite: boolean } {
  const finite = Object.values(c).every((v) => typeof v !== 'number' || Number.isFinite(v));
  if (finite) return { comparison: c, finite };
  return { comparison: { ...c, ...NO_FIGURES }, finite };
}

function nonInferior(c: PairedComparison, scorer: OfflineScorer): boolean | null {
  if (scorer.margin === null) return null;
  if (c.ci_low === null || c.ci_high === null) return false;
  return scorer.direction === 'increase' ? c.ci_low > -scorer.margin : c.ci_high < scorer.margin;
}
