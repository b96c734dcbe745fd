/**
 * The bucket-map layout: which variant owns each bucket of an experiment, and how a new
 * version's allocation changes it. The server stores and serves it; the dashboard's allocation
 * editor previews a change with these same functions, so what the editor promises is what a
 * save does.
 */

/**
 * `variant: null` marks a retired bucket: it answers null forever. Buckets in no range were
 * never used and may be taken by a growing slice.
 * Invariant: a bucket, once given to a variant, never moves to another variant.
 */
export interface BucketRun {
  variant: string | null;
  start: number;
  end: number;
}
export interface BucketMap {
  bucket_count: number;
  runs: BucketRun[];
}

/** One slice of an allocation: a variant and its percent of all users, in steps of 0.01. */
export interface AllocationSlice {
  variant: string;
  weight: number;
}

export type RelayoutOutcome = { ok: true; map: BucketMap } | { ok: false; reason: string };

/** Weights are percentages in steps of 0.01; counting in hundredths keeps the arithmetic exact. */
function hundredths(weight: number): number {
  return Math.round(weight * 100);
}

/**
 * Buckets each slice should own: cumulative rounding, so the shares never sum past
 * bucket_count and each slice is within one bucket of its exact share.
 */
export function targetCounts(
  allocation: readonly AllocationSlice[],
  bucketCount: number,
): Map<string, number> {
  const counts = new Map<string, number>();
  let cumulative = 0;
  let previousBoundary = 0;
  for (const slice of allocation) {
    cumulative += hundredths(slice.weight);
    const boundary = Math.floor((cumulative * bucketCount + 5000) / 10000);
    counts.set(slice.variant, boundary - previousBoundary);
    previousBoundary = boundary;
  }
  return counts;
}

/** Version 1 lays the slices out in order from bucket 0. */
export function initialBucketMap(
  allocation: readonly AllocationSlice[],
  bucketCount: number,
): BucketMap {
  const runs: BucketRun[] = [];
  let start = 0;
  for (const [variant, count] of targetCounts(allocation, bucketCount)) {
    if (count > 0) runs.push({ variant, start, end: start + count });
    start += count;
  }
  return { bucket_count: bucketCount, runs };
}

function ownedCount(runs: readonly BucketRun[], variant: string): number {
  return runs.reduce((n, r) => (r.variant === variant ? n + r.end - r.start : n), 0);
}

/** Retires `count` of the variant's buckets, highest first. */
function retire(runs: BucketRun[], variant: string, count: number): BucketRun[] {
  let left = count;
  const out = [...runs];
  for (let i = out.length - 1; i >= 0 && left > 0; i--) {
    const r = out[i] as BucketRun;
    if (r.variant !== variant) continue;
    const size = r.end - r.start;
    const take = Math.min(size, left);
    left -= take;
    const kept = size - take;
    out.splice(i, 1, ...(kept > 0 ? [{ variant, start: r.start, end: r.start + kept }] : []), {
      variant: null,
      start: r.start + kept,
      end: r.end,
    });
  }
  return out;
}

/** Never-used bucket intervals, lowest first. */
function freeIntervals(runs: readonly BucketRun[], bucketCount: number): Array<[number, number]> {
  const sorted = [...runs].sort((a, b) => a.start - b.start);
  const free: Array<[number, number]> = [];
  let cursor = 0;
  for (const r of sorted) {
    if (r.start > cursor) free.push([cursor, r.start]);
    cursor = Math.max(cursor, r.end);
  }
  if (cursor < bucketCount) free.push([cursor, bucketCount]);
  return free;
}

function normalise(runs: readonly BucketRun[]): BucketRun[] {
  const sorted = [...runs].sort((a, b) => a.start - b.start);
  const merged: BucketRun[] = [];
  for (const r of sorted) {
    const last = merged[merged.length - 1];
    if (last && last.variant === r.variant && last.end === r.start) last.end = r.end;
    else merged.push({ ...r });
  }
  return merged;
}

/**
 * The bucket map of a new version: shrinking slices retire buckets, growing slices and new
 * variants take never-used buckets, so a user who has a variant keeps it or drops to null.
 */
export function relayout(
  previous: BucketMap,
  allocation: readonly AllocationSlice[],
): RelayoutOutcome {
  const targets = targetCounts(allocation, previous.bucket_count);
  let runs = previous.runs.map((r) => ({ ...r }));
  const variantsWithBuckets = new Set(runs.flatMap((r) => (r.variant === null ? [] : [r.variant])));
  for (const variant of variantsWithBuckets) {
    const surplus = ownedCount(runs, variant) - (targets.get(variant) ?? 0);
    if (surplus > 0) runs = retire(runs, variant, surplus);
  }
  const free = freeIntervals(runs, previous.bucket_count);
  const available = free.reduce((n, [a, b]) => n + b - a, 0);
  const needs = allocation.map((s) => ({
    variant: s.variant,
    need: Math.max(0, (targets.get(s.variant) ?? 0) - ownedCount(runs, s.variant)),
  }));
  const totalNeed = needs.reduce((n, x) => n + x.need, 0);
  if (totalNeed > available) {
    const growing = needs.filter((x) => x.need > 0).map((x) => `${x.variant} (+${x.need})`);
    return {
      ok: false,
      reason: `growing ${growing.join(', ')} needs ${totalNeed} never-used buckets but only ${available} of ${previous.bucket_count} remain; retired buckets never return to a variant`,
    };
  }
  for (const { variant, need } of needs) {
    let left = need;
    while (left > 0) {
      const interval = free[0] as [number, number];
      const take = Math.min(left, interval[1] - interval[0]);
      runs.push({ variant, start: interval[0], end: interval[0] + take });
      interval[0] += take;
      if (interval[0] === interval[1]) free.shift();
      left -= take;
    }
  }
  return { ok: true, map: { bucket_count: previous.bucket_count, runs: normalise(runs) } };
}

/** The ranges clients receive: owned runs only, sorted. */
export function clientRanges(
  map: BucketMap,
): Array<{ variant: string; start: number; end: number }> {
  return map.runs.flatMap((r) =>
    r.variant === null ? [] : [{ variant: r.variant, start: r.start, end: r.end }],
  );
}
