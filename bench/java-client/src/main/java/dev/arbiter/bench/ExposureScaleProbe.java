package dev.arbiter.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.function.IntFunction;

/**
 * Issue 32's goal for exposures at scale: at each number of distinct users (default 16,384,
 * 65,536, 262,144 and 1,048,576), {@code assign()} with exposures on, every user already exposed
 * (the steady state), against the same call with exposures off, in calls per second of the
 * calling thread's CPU time (the machine is shared), the two measured in alternating rounds in
 * one process, and their ratio (goal at a million users: at least 0.5). The set-up of each size
 * prints what the first round of exposures sent and dropped (it throws unless every exposure was
 * delivered once and none dropped) and what the exposure table added to the heap and the RSS.
 *
 * <p>{@code java -cp target/benchmarks.jar dev.arbiter.bench.ExposureScaleProbe [users...]}
 */
public final class ExposureScaleProbe {
  private static final int ROUNDS = 3;
  /** Calls a round: a CPU second or two at the measured rates, ten passes over a million users. */
  private static final int CALLS = 10_000_000;

  private ExposureScaleProbe() {}

  public static void main(String[] args) throws Exception {
    int[] sizes = args.length > 0 ? new int[args.length] : new int[] {16_384, 65_536, 262_144, 1_048_576};
    for (int i = 0; i < args.length; i++) sizes[i] = Integer.parseInt(args[i]);
    ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
    StringBuilder summary = new StringBuilder();
    for (int users : sizes) {
      AssignBenchmark state = new AssignBenchmark();
      state.users = users;
      state.setUp("arbiterAssign");
      try {
        IntFunction<String> on = i -> state.arbiterAssign();
        IntFunction<String> off = i -> state.arbiterAssignWithoutExposures();
        // Warm-up: the JIT compiles both paths before anything is timed.
        rate(cpu, on, CALLS / 4);
        rate(cpu, off, CALLS / 4);
        double[] ratios = new double[ROUNDS];
        double[] onRates = new double[ROUNDS];
        double[] offRates = new double[ROUNDS];
        for (int round = 0; round < ROUNDS; round++) {
          // Alternating, so that a change of load falls on both sides.
          offRates[round] = rate(cpu, off, CALLS);
          onRates[round] = rate(cpu, on, CALLS);
          ratios[round] = onRates[round] / offRates[round];
          System.out.printf("%,9d users round %d: exposures off %,.0f, on %,.0f calls per CPU second: %.2f%n",
              users, round + 1, offRates[round], onRates[round], ratios[round]);
        }
        long sentBefore = state.exposuresSent();
        if (state.exposuresDropped() != 0 || sentBefore != users) {
          throw new IllegalStateException("exposures dropped or re-sent while measured");
        }
        java.util.Arrays.sort(ratios);
        java.util.Arrays.sort(onRates);
        java.util.Arrays.sort(offRates);
        summary.append(String.format("%,9d users: off %.1f M/s, on %.1f M/s (medians), on/off median %.2f "
            + "(range %.2f-%.2f), exposures sent %,d, dropped %d%n", users, offRates[ROUNDS / 2] / 1e6,
            onRates[ROUNDS / 2] / 1e6, ratios[ROUNDS / 2], ratios[0], ratios[ROUNDS - 1], sentBefore,
            state.exposuresDropped()));
      } finally {
        state.tearDown();
      }
    }
    System.out.print(summary);
  }

  private static double rate(ThreadMXBean cpu, IntFunction<String> call, int calls) {
    long sink = 0;
    long start = cpu.getCurrentThreadCpuTime();
    for (int i = 0; i < calls; i++) sink += call.apply(i).length();
    double seconds = (cpu.getCurrentThreadCpuTime() - start) / 1e9;
    if (sink == 42) System.out.println();
    return calls / seconds;
  }
}
