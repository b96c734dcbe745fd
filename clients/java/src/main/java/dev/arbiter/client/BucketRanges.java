package dev.arbiter.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Half-open bucket ranges {@code [start, end)} with no owner: a holdout's held-out buckets, or
 * the layer buckets an experiment owns. Sorted by start once, so a lookup stops at the first
 * range past the bucket; every range up to it is tried, so the answer is "some range holds it"
 * even for ranges that overlap, as the reference evaluator reads them.
 */
final class BucketRanges {
  static final BucketRanges NONE = new BucketRanges(new long[0], new long[0]);

  private final long[] starts;
  private final long[] ends;

  private BucketRanges(long[] starts, long[] ends) {
    this.starts = starts;
    this.ends = ends;
  }

  /** The ranges of a JSON list of {@code {start, end}} integers, or null when it is not one. */
  static BucketRanges of(Object raw) {
    if (!(raw instanceof List)) return null;
    List<long[]> bounds = new ArrayList<>();
    for (Object r : (List<?>) raw) {
      if (!(r instanceof Map)) return null;
      Object start = ((Map<?, ?>) r).get("start");
      Object end = ((Map<?, ?>) r).get("end");
      if (!(start instanceof Long) || !(end instanceof Long)) return null;
      bounds.add(new long[] {(Long) start, (Long) end});
    }
    bounds.sort((a, b) -> Long.compare(a[0], b[0]));
    long[] starts = new long[bounds.size()];
    long[] ends = new long[bounds.size()];
    for (int i = 0; i < starts.length; i++) {
      starts[i] = bounds.get(i)[0];
      ends[i] = bounds.get(i)[1];
    }
    return new BucketRanges(starts, ends);
  }

  boolean contains(long bucket) {
    for (int i = 0; i < starts.length && starts[i] <= bucket; i++) {
      if (bucket < ends[i]) return true;
    }
    return false;
  }
}
