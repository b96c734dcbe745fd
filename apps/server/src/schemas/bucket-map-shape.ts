/**
 * Which variant owns each bucket. `variant: null` marks a retired bucket: it answers null
 * forever. Buckets in no range were never used and may be taken by a growing slice.
 * Invariant: a bucket, once given to a variant, never moves to another variant.
 * The algorithms over it live in domain/experiments/bucket-map.ts.
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
