package dev.arbiter.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.function.LongSupplier;

/**
 * Issue 29's speed goal on a shared machine: {@code assign()} behind the five-clause targeting
 * condition against the same call with no condition ({@link AssignBenchmark}'s
 * {@code arbiterAssignTargeted} and {@code arbiterAssignWithoutExposures}), in calls per second
 * of the calling thread's CPU time, the two sides alternating round by round so that a change
 * of load falls on both. Prints each round's rates and ratio, then the median ratio. A third
 * side, the same condition written out by hand ({@link HandWrittenCondition}) before the
 * untargeted call, shows the floor of any evaluator reading a caller's map. With
 * {@code exposed}, the targeted side is {@code arbiterAssignTargetedWithExposures}: the
 * defaults, exposures and targeting tallies on.
 *
 * <pre>java -cp target/benchmarks.jar dev.arbiter.bench.TargetingProbe [rounds] [calls] [exposed]</pre>
 */
public final class TargetingProbe {
  private TargetingProbe() {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    int calls = args.length > 1 ? Integer.parseInt(args[1]) : 20_000_000;
    boolean exposed = args.length > 2 && args[2].equals("exposed");
    AssignBenchmark state = new AssignBenchmark();
    state.setUp(exposed ? "arbiterAssignTargetedWithExposures" : "arbiterAssignTargeted");
    state.checkHandWrittenCondition();
    try {
      ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
      // Warm-up: both paths compiled before anything is timed.
      plain(state, calls / 2);
      targeted(state, calls / 2, exposed);
      handWritten(state, calls / 2);
      double[] ratios = new double[rounds];
      double[] floors = new double[rounds];
      for (int round = 0; round < rounds; round++) {
        double plainRate = perCpuSecond(cpu, calls, () -> plain(state, calls));
        double targetedRate = perCpuSecond(cpu, calls, () -> targeted(state, calls, exposed));
        double handRate = perCpuSecond(cpu, calls, () -> handWritten(state, calls));
        ratios[round] = targetedRate / plainRate;
        floors[round] = handRate / plainRate;
        System.out.printf("round %d: without targeting %,.0f, targeted %,.0f calls per CPU second:"
            + " %.2f; hand-written condition %,.0f: %.2f (checksum %d)%n", round + 1, plainRate,
            targetedRate, ratios[round], handRate, floors[round], checksum);
      }
      double[] sortedFloors = floors.clone();
      Arrays.sort(sortedFloors);
      double[] sorted = ratios.clone();
      Arrays.sort(sorted);
      System.out.printf("median ratio targeted / without: %.2f (range %.2f-%.2f, goal >= 0.5)%n",
          sorted[rounds / 2], sorted[0], sorted[rounds - 1]);
      System.out.printf("median ratio hand-written condition / without: %.2f (range %.2f-%.2f)%n",
          sortedFloors[rounds / 2], sortedFloors[0], sortedFloors[rounds - 1]);
    } finally {
      state.tearDown();
    }
  }

  /** What the loops returned, printed so that the JIT cannot drop the calls. */
  private static long checksum;

  /** Calls per second of this thread's CPU time while {@code loop} makes {@code calls} calls. */
  private static double perCpuSecond(ThreadMXBean cpu, int calls, LongSupplier loop) {
    long start = cpu.getCurrentThreadCpuTime();
    checksum += loop.getAsLong();
    return calls / ((cpu.getCurrentThreadCpuTime() - start) / 1e9);
  }

  // One loop per side, so that each call site sees one receiver, as in the JMH methods.
  private static long plain(AssignBenchmark state, int calls) {
    long sink = 0;
    for (int i = 0; i < calls; i++) {
      String variant = state.arbiterAssignWithoutExposures();
      sink += variant == null ? 0 : variant.length();
    }
    return sink;
  }

  private static long targeted(AssignBenchmark state, int calls, boolean exposed) {
    return exposed ? targetedExposed(state, calls) : targeted(state, calls);
  }

  private static long handWritten(AssignBenchmark state, int calls) {
    long sink = 0;
    for (int i = 0; i < calls; i++) {
      String variant = state.handWrittenTargetedAssign();
      sink += variant == null ? 0 : variant.length();
    }
    return sink;
  }

  private static long targeted(AssignBenchmark state, int calls) {
    long sink = 0;
    for (int i = 0; i < calls; i++) {
      String variant = state.arbiterAssignTargeted();
      sink += variant == null ? 0 : variant.length();
    }
    return sink;
  }

  private static long targetedExposed(AssignBenchmark state, int calls) {
    long sink = 0;
    for (int i = 0; i < calls; i++) {
      String variant = state.arbiterAssignTargetedWithExposures();
      sink += variant == null ? 0 : variant.length();
    }
    return sink;
  }
}
