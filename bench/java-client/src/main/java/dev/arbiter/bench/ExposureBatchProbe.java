package dev.arbiter.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * Issue 32's next idea, measured before it is built: what batching the exposure table's lookups
 * would give at a million users. Each call is the client's real {@code assign()} with exposures
 * off; beside it, a model of the client's table (64-bit fingerprints, linear probing, home slot by
 * multiply-shift, at most three slots in four filled, as {@code ExposureTable}) holding every
 * user, looked up three ways:
 *
 * <ul>
 *   <li>{@code off}: no lookup (the exposures-off figure);
 *   <li>{@code each}: one lookup per call, as the client does now;
 *   <li>{@code batched}: the fingerprint kept, and every 1,024 calls the batch looked up in one
 *       loop, after a first loop that only reads each home slot, so that the batch's cache misses
 *       are in flight together rather than one after another.
 * </ul>
 *
 * Calls per second of the calling thread's CPU time, the three alternating round by round.
 *
 * <pre>java -cp target/benchmarks.jar dev.arbiter.bench.ExposureBatchProbe [users] [rounds]</pre>
 */
public final class ExposureBatchProbe {
  private static final int CALLS = 10_000_000;
  private static final int BATCH = 1_024;

  private ExposureBatchProbe() {}

  public static void main(String[] args) throws Exception {
    int users = args.length > 0 ? Integer.parseInt(args[0]) : 1_048_576;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    AssignBenchmark state = new AssignBenchmark();
    state.users = users;
    state.setUp("arbiterAssignWithoutExposures");
    try {
      long[] table = new long[(int) (((long) users * 4 + 2) / 3)];
      for (int i = 0; i < users; i++) put(table, fingerprint(state.userAt(i)));
      ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
      String[] modes = {"off", "each", "batched"};
      for (String mode : modes) run(state, table, mode, CALLS / 4);
      for (int round = 1; round <= rounds; round++) {
        double[] rate = new double[modes.length];
        for (int m = 0; m < modes.length; m++) {
          long start = cpu.getCurrentThreadCpuTime();
          long sink = run(state, table, modes[m], CALLS);
          rate[m] = CALLS / ((cpu.getCurrentThreadCpuTime() - start) / 1e9);
          if (sink == 42) System.out.println();
        }
        System.out.printf("%,d users round %d: off %,.0f, each %,.0f (%.2f), batched %,.0f (%.2f)"
            + " calls per CPU second%n", users, round, rate[0], rate[1], rate[1] / rate[0], rate[2],
            rate[2] / rate[0]);
      }
    } finally {
      state.tearDown();
    }
  }

  private static long run(AssignBenchmark state, long[] table, String mode, int calls) {
    long sink = 0;
    long[] pending = new long[BATCH];
    int waiting = 0;
    int users = state.users;
    for (int i = 0; i < calls; i++) {
      int user = state.nextUser();
      sink += state.arbiterAssignWithoutExposures().length();
      if (mode.equals("off")) continue;
      long fp = fingerprint(state.userAt(user));
      if (mode.equals("each")) {
        if (!contains(table, fp)) sink++;
        continue;
      }
      pending[waiting++] = fp;
      if (waiting == BATCH) {
        for (int j = 0; j < BATCH; j++) sink += table[home(pending[j], table.length)];
        for (int j = 0; j < BATCH; j++) if (!contains(table, pending[j])) sink++;
        waiting = 0;
      }
    }
    return sink + users;
  }

  // A stand-in for the client's fingerprint: 64 mixed bits of the id's cached String hash.
  private static long fingerprint(String user) {
    long h = user.hashCode() * 0x9E3779B97F4A7C15L;
    h ^= h >>> 29;
    h *= 0xBF58476D1CE4E5B9L;
    return (h ^ h >>> 32) | 1;
  }

  private static int home(long fp, int n) {
    return (int) (((fp >>> 32) * n) >>> 32);
  }

  private static boolean contains(long[] table, long fp) {
    int n = table.length;
    for (int i = home(fp, n);;) {
      long v = table[i];
      if (v == fp) return true;
      if (v == 0) return false;
      if (++i == n) i = 0;
    }
  }

  private static void put(long[] table, long fp) {
    int n = table.length;
    int i = home(fp, n);
    while (table[i] != 0 && table[i] != fp) {
      if (++i == n) i = 0;
    }
    table[i] = fp;
  }
}
