package dev.arbiter.bench;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.IntFunction;

/**
 * {@link ExposureScaleProbe} with a skewed stream of users instead of a round-robin one. Real
 * populations are skewed: a minority of users make most calls. Every user (default 1,048,576) is
 * exposed first, as in the scale probe. The calls then pick users by a Zipf law of exponent
 * {@code s} (rank k drawn with odds 1/k^s; s = 0 is uniform), the ranks scattered over the ids
 * so that the heavy users' strings and slots do not sit side by side. Each pick is a user, so the
 * table holds every user as it does in the scale probe. Each call's id is a new string, as an
 * app's is when it reads it from the request: a million stored ids read in random order would
 * make the exposures-off call wait on memory too. Exposures on against off, in calls per
 * CPU second of the calling thread, in alternating rounds over the same sequence of picks.
 *
 * <p>{@code java -cp target/benchmarks.jar dev.arbiter.bench.ExposureSkewProbe [users] [s...]}
 */
public final class ExposureSkewProbe {
  /** Picks drawn once and replayed: 64 MiB of ints, read in order. */
  private static final int PICKS = 1 << 24;

  private ExposureSkewProbe() {}

  public static void main(String[] args) throws Exception {
    int users = args.length > 0 ? Integer.parseInt(args[0]) : 1_048_576;
    double[] exponents = args.length > 1 ? new double[args.length - 1] : new double[] {0, 0.8, 1.0};
    for (int i = 1; i < args.length; i++) exponents[i - 1] = Double.parseDouble(args[i]);
    AssignBenchmark state = new AssignBenchmark();
    state.users = users;
    state.setUp("arbiterAssign");
    StringBuilder summary = new StringBuilder();
    try {
      long sentBefore = state.exposuresSent();
      for (double s : exponents) {
        int[] picks = zipfPicks(users, s, new SplittableRandom(42));
        IntFunction<String> on = i -> state.arbiterAssignFresh("user-" + picks[i & (PICKS - 1)]);
        IntFunction<String> off =
            i -> state.arbiterAssignFreshWithoutExposures("user-" + picks[i & (PICKS - 1)]);
        OnOffRounds r = OnOffRounds.measure(on, off, (round, offRate, onRate) -> { });
        summary.append(String.format("%,9d users, Zipf s=%.1f (top 1%% of users make %.0f%% of calls):"
            + " %s%n", users, s, 100 * topShare(picks, users, 0.01), r.summary()));
      }
      long sent = state.exposuresSent();
      if (state.exposuresDropped() != 0 || sent != sentBefore || sent != users) {
        throw new IllegalStateException("exposures dropped or re-sent while measured: " + sent);
      }
      summary.append(String.format("exposures sent %,d (every user once), dropped %d%n", sent,
          state.exposuresDropped()));
    } finally {
      state.tearDown();
    }
    System.out.print(summary);
  }

  /** {@link #PICKS} user indexes, rank k drawn with odds 1/k^s, ranks scattered over the ids. */
  private static int[] zipfPicks(int users, double s, SplittableRandom random) {
    double[] cdf = new double[users];
    double total = 0;
    for (int k = 0; k < users; k++) {
      total += Math.pow(k + 1, -s);
      cdf[k] = total;
    }
    int[] userOfRank = new int[users];
    for (int i = 0; i < users; i++) userOfRank[i] = i;
    for (int i = users - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = userOfRank[i];
      userOfRank[i] = userOfRank[j];
      userOfRank[j] = t;
    }
    int[] picks = new int[PICKS];
    for (int i = 0; i < PICKS; i++) {
      int rank = Arrays.binarySearch(cdf, random.nextDouble() * total);
      picks[i] = userOfRank[Math.min(rank < 0 ? -rank - 1 : rank, users - 1)];
    }
    return picks;
  }

  /** The share of picks that go to the most picked {@code fraction} of users. */
  private static double topShare(int[] picks, int users, double fraction) {
    int[] counts = new int[users];
    for (int p : picks) counts[p]++;
    Arrays.sort(counts);
    long top = 0;
    int n = (int) (users * fraction);
    for (int i = users - n; i < users; i++) top += counts[i];
    return top / (double) picks.length;
  }

}
