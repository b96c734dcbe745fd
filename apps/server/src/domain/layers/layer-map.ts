import type { LayerRun } from '../../db/schema.ts';

/**
 * Which experiment owns which buckets of a layer. Invariant: a bucket once handed to an
 * experiment is never handed to another one, even after it is retired, so two experiments of a
 * layer never share a user while either still has results being computed.
 */

/**
 * The layer buckets `layer_weight` percent of the layer's users take: ⌊bucket_count × weight ÷ 100⌋,
 * counted in hundredths of a percent so it is exact. Rounding down means experiments whose
 * weights sum to at most 100 always fit in a layer nobody has retired buckets from.
 */
export function layerBucketsFor(bucketCount: number, layerWeight: number): number {
  return Math.floor((bucketCount * Math.round(layerWeight * 100)) / 10_000);
}

/** The half-open runs an experiment owns now, sorted. */
export function ownedRanges(
  runs: readonly LayerRun[],
  experimentId: string,
): Array<{ start: number; end: number }> {
  return runs
    .filter((r) => r.experiment_id === experimentId && r.retired !== true)
    .map((r) => ({ start: r.start, end: r.end }))
    .sort((a, b) => a.start - b.start);
}

/** Buckets no run has ever covered, as half-open intervals, lowest first. */
export function neverUsed(
  runs: readonly LayerRun[],
  bucketCount: number,
): Array<{ start: number; end: number }> {
  const sorted = [...runs].sort((a, b) => a.start - b.start);
  const free: Array<{ start: number; end: number }> = [];
  let cursor = 0;
  for (const r of sorted) {
    if (r.start > cursor) free.push({ start: cursor, end: r.start });
    cursor = Math.max(cursor, r.end);
  }
  if (cursor < bucketCount) free.push({ start: cursor, end: bucketCount });
  return free;
}

export type ResizeOutcome =
  | { ok: true; runs: LayerRun[] }
  | { ok: false; needed: number; free: number };

/**
 * The layer's runs once `experimentId` owns `target` buckets: shrinking retires its highest
 * buckets (their users drop to null and never reach another experiment); growing takes
 * never-used buckets, lowest first. Nobody's bucket moves.
 */
export function resizeOwner(
  runs: readonly LayerRun[],
  bucketCount: number,
  experimentId: string,
  target: number,
): ResizeOutcome {
  const owned = ownedRanges(runs, experimentId).reduce((n, r) => n + r.end - r.start, 0);
  if (target === owned) return { ok: true, runs: [...runs] };
  if (target < owned) return { ok: true, runs: retireHighest(runs, experimentId, owned - target) };
  const free = neverUsed(runs, bucketCount);
  const available = free.reduce((n, r) => n + r.end - r.start, 0);
  const needed = target - owned;
  if (needed > available) return { ok: false, needed, free: available };
  const out = [...runs];
  let left = needed;
  for (const interval of free) {
    if (left === 0) break;
    const take = Math.min(left, interval.end - interval.start);
    out.push({ experiment_id: experimentId, start: interval.start, end: interval.start + take });
    left -= take;
  }
  return { ok: true, runs: merged(out) };
}

function retireHighest(runs: readonly LayerRun[], experimentId: string, count: number): LayerRun[] {
  const out = [...runs].sort((a, b) => a.start - b.start);
  let left = count;
  for (let i = out.length - 1; i >= 0 && left > 0; i--) {
    const r = out[i]!;
    if (r.experiment_id !== experimentId || r.retired === true) continue;
    const take = Math.min(left, r.end - r.start);
    left -= take;
    const kept = r.end - r.start - take;
    out.splice(
      i,
      1,
      ...(kept > 0 ? [{ experiment_id: experimentId, start: r.start, end: r.start + kept }] : []),
      { experiment_id: experimentId, start: r.start + kept, end: r.end, retired: true as const },
    );
  }
  return merged(out);
}

/** Sorted, with adjacent runs of one owner and one state joined. */
function merged(runs: readonly LayerRun[]): LayerRun[] {
  const sorted = [...runs].sort((a, b) => a.start - b.start);
  const out: LayerRun[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (
      last !== undefined &&
      last.experiment_id === r.experiment_id &&
      (last.retired === true) === (r.retired === true) &&
      last.end === r.start
    )
      last.end = r.end;
    else out.push({ ...r });
  }
  return out;
}
