import { type BucketMap, type BucketRun, initialBucketMap, relayout } from '@arbiter/contract';

/**
 * The preview runs the server's own relayout (the contract's module, bundled), so what the
 * editor promises is what a save does.
 */
type Ranges = ReadonlyArray<{ variant: string; start: number; end: number }>;
type Slice = { variant: string; weight: number };

/**
 * The full bucket map of the latest version. Responses list only owned ranges, so retired
 * buckets are the ones some earlier version owned that the latest does not: a bucket once
 * used never becomes free again.
 */
export function currentMap(
  bucketCount: number,
  versions: ReadonlyArray<{ bucket_ranges: Ranges }>,
) {
  const latest = versions[0]?.bucket_ranges ?? [];
  const owner = new Array<string | null | undefined>(bucketCount).fill(undefined);
  for (const v of versions)
    for (const r of v.bucket_ranges) for (let b = r.start; b < r.end; b++) owner[b] = null;
  for (const r of latest) for (let b = r.start; b < r.end; b++) owner[b] = r.variant;
  const runs: BucketRun[] = [];
  for (let b = 0; b < bucketCount; b++) {
    const o = owner[b];
    if (o === undefined) continue;
    const last = runs[runs.length - 1];
    if (last && last.variant === o && last.end === b) last.end = b + 1;
    else runs.push({ variant: o, start: b, end: b + 1 });
  }
  return { bucket_count: bucketCount, runs } satisfies BucketMap;
}

export interface VariantChange {
  variant: string;
  before: number;
  after: number;
  /** Buckets whose users lose this variant and get the control behaviour (null) from now on. */
  retired: number;
  /** Never-used buckets newly given to the variant: new users join it, nobody moves. */
  added: number;
}

export type Preview =
  | { ok: true; map: BucketMap; changes: VariantChange[]; unused: number; retired: number }
  | { ok: false; reason: string; map: BucketMap };

const owned = (map: BucketMap, variant: string | null) =>
  map.runs.reduce((n, r) => (r.variant === variant ? n + r.end - r.start : n), 0);

export function previewCreate(allocation: Slice[], bucketCount: number): Preview {
  const map = initialBucketMap(allocation, bucketCount);
  return summarise({ bucket_count: bucketCount, runs: [] }, map, allocation);
}

export function previewChange(previous: BucketMap, allocation: Slice[]): Preview {
  const outcome = relayout(previous, allocation);
  if (!outcome.ok) return { ok: false, reason: outcome.reason, map: previous };
  return summarise(previous, outcome.map, allocation);
}

function summarise(previous: BucketMap, next: BucketMap, allocation: Slice[]): Preview {
  const names = new Set([
    ...allocation.map((s) => s.variant),
    ...previous.runs.flatMap((r) => (r.variant ? [r.variant] : [])),
  ]);
  const changes = [...names].map((variant) => {
    const before = owned(previous, variant);
    const after = owned(next, variant);
    return {
      variant,
      before,
      after,
      retired: Math.max(0, before - after),
      added: Math.max(0, after - before),
    };
  });
  const used = next.runs.reduce((n, r) => n + r.end - r.start, 0);
  return {
    ok: true,
    map: next,
    changes,
    unused: next.bucket_count - used,
    retired: owned(next, null),
  };
}
