import { sampleSd } from './paired-comparison.ts';

export const UNSTABLE_ITEMS_MAX = 100;

/** How much one variant's scores move between repeats of the same item. */
export interface NonDeterminism {
  n_items: number;
  sd_within_items: number | null;
  sd_between_items: number | null;
  flip_rate: number | null;
  pass_all: number | null;
  unstable_items: string[] | null;
}

/**
 * For one variant and scorer, from each item's values over the repeats that have one
 * (y(v,i,r)), with y(v,i) their mean and kᵢ their count:
 * - sd_within_items = √(Σᵢ Σᵣ (y(v,i,r) − y(v,i))² ÷ Σᵢ (kᵢ − 1)) over the items with kᵢ ≥ 2
 *   (null when there is none);
 * - sd_between_items = the sd of y(v,i) at ddof 1 over the items with a value (null under 2);
 * - when every value is 0 or 1, among the items with kᵢ ≥ 2: flip_rate, the share whose
 *   repeats differ; pass_all, the share whose repeats are all 1; unstable_items, the first
 *   100 ids (byte order) of those whose repeats differ. Null for other scorers, or with no
 *   such item.
 */
export function nonDeterminism(values: ReadonlyMap<string, readonly number[]>): NonDeterminism {
  const means: number[] = [];
  let ss = 0;
  let dof = 0;
  let repeated = 0;
  let flipped = 0;
  let passed = 0;
  let binary = true;
  const unstable: string[] = [];
  for (const [id, ys] of values) {
    if (ys.length === 0) continue;
    let s = 0;
    for (const y of ys) {
      s += y;
      if (y !== 0 && y !== 1) binary = false;
    }
    const m = s / ys.length;
    means.push(m);
    if (ys.length < 2) continue;
    repeated++;
    for (const y of ys) ss += (y - m) * (y - m);
    dof += ys.length - 1;
    if (ys.some((y) => y !== ys[0])) {
      flipped++;
      unstable.push(id);
    } else if (ys[0] === 1) passed++;
  }
  unstable.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const binaryFigures = binary && repeated > 0;
  return {
    n_items: means.length,
    sd_within_items: dof > 0 ? Math.sqrt(ss / dof) : null,
    sd_between_items: means.length >= 2 ? sampleSd(means) : null,
    flip_rate: binaryFigures ? flipped / repeated : null,
    pass_all: binaryFigures ? passed / repeated : null,
    unstable_items: binaryFigures ? unstable.slice(0, UNSTABLE_ITEMS_MAX) : null,
  };
}
