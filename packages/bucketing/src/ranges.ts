/**
 * A half-open run of buckets [start, end) owned by one variant. Ranges are computed by the
 * server and shipped in the config; clients only look a bucket up, never build ranges.
 */
export interface BucketRange {
  variant: string;
  start: number;
  end: number;
}

/** The variant owning `bucket`, or null when the bucket is unassigned or retired. Ranges must be sorted by start. */
export function variantForBucket(ranges: readonly BucketRange[], bucket: number): string | null {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const r = ranges[mid] as BucketRange;
    if (bucket < r.start) hi = mid - 1;
    else if (bucket >= r.end) lo = mid + 1;
    else return r.variant;
  }
  return null;
}
