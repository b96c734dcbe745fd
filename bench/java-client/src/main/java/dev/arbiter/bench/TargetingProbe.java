package dev.arbiter.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.function.LongSupplier;

/**
 * The targeting goal (a targeted call at least 0.5x an untargeted one) on a shared machine:
 * {@code assign()} behind the five-clause targeting condition against the same call with no
 * condition ({@link AssignBenchmark}'s
 * {@code arbiterAssignTargeted} and {@code arbiterAssignWithoutExposures}), in calls per second
 * of the calling thread's CPU time, the two sides alternating round by round so that a change
 * of load falls on both. Prints each round's rates and ratio, then the median ratio. A third
 * side, the same condition written out by hand ({@link HandWrittenCondition}) before the
 * untargeted call, shows the floor of any evaluator reading a caller's map; a fourth, the
 * same over the five fields read beforehand, the floor of an API that resolves a request's
 * attributes once. Two more sides time the client's answer to that, {@code PreparedAttributes}:
 * each user's built in the set-up, as a request-scoped context is, and one built in each call
 * (its copy and resolution every time), so that its cost shows. With
 * {@code exposed}, the targeted side is {@code arbiterAssignTargetedWithExposures}: the
 * defaults, exposures and targeting tallies on.
 *
 * {@code users} (a power of two, default 16,384) sets how many distinct users the calls cycle
 * through: with a few, every user's attributes stay in the CPU's caches.
 *
 * <pre>java -cp target/benchmarks.jar dev.arbiter.bench.TargetingProbe [rounds] [calls] [exposed|plain] [users]</pre>
 */
public final class TargetingProbe {
  private TargetingProbe() {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    int calls = args.length > 1 ? Integer.parseInt(args[1]) : 20_000_000;
    boolean exposed = args.length > 2 && args[2].equals("exposed");
    AssignBenchmark state = new AssignBenchmark();
    if (args.length > 3) state.users = Integer.parseInt(args[3]);
    state.setUp(exposed ? "arbiterAssignTargetedWithExposures" : "arbiterAssignTargeted");
    state.checkHandWrittenCondition();
    try {
      ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
      // Warm-up: both paths compiled before anything is timed.
      plain(state, calls / 2);
      targeted(state, calls / 2, exposed);
      handWritten(state, calls / 2);
      handWrittenResolved(state, calls / 2);
      prepared(state, calls / 2);
      preparedPerCall(state, calls / 2);
      double[] ratios = new double[rounds];
      double[] preparedRatios = new double[rounds];
      double[] perCallRatios = new double[rounds];
      double[] floors = new double[rounds];
      double[] resolvedFloors = new double[rounds];
      for (int round = 0; round < rounds; round++) {
        double plainRate = perCpuSecond(cpu, calls, () -> plain(state, calls));
        double targetedRate = perCpuSecond(cpu, calls, () -> targeted(state, calls, exposed));
        double handRate = perCpuSecond(cpu, calls, () -> handWritten(state, calls));
        double resolvedRate = perCpuSecond(cpu, calls, () -> handWrittenResolved(state, calls));
        double preparedRate = perCpuSecond(cpu, calls, () -> prepared(state, calls));
        double perCallRate = perCpuSecond(cpu, calls, () -> preparedPerCall(state, calls));
        preparedRatios[round] = preparedRate / plainRate;
        perCallRatios[round] = perCallRate / plainRate;
        ratios[round] = targetedRate / plainRate;
        floors[round] = handRate / plainRate;
        resolvedFloors[round] = resolvedRate / plainRate;
        System.out.printf("round %d: without targeting %,.0f, targeted %,.0f calls per CPU second:"
            + " %.2f; hand-written condition %,.0f: %.2f; over resolved fields %,.0f: %.2f"
            + "; PreparedAttributes %,.0f: %.2f, built per call %,.0f: %.2f"
            + " (checksum %d)%n", round + 1, plainRate, targetedRate, ratios[round], handRate,
            floors[round], resolvedRate, resolvedFloors[round], preparedRate,
            preparedRatios[round], perCallRate, perCallRatios[round], checksum);
      }
      printMedian("targeted / without", ratios, " goal >= 0.5");
      printMedian("targeted, PreparedAttributes / without", preparedRatios, " goal >= 0.5");
      printMedian("targeted, PreparedAttributes built per call / without", perCallRatios, "");
      printMedian("hand-written condition / without", floors, "");
      printMedian("hand-written condition over resolved fields / without", resolvedFloors, "");
    } finally {
      state.tearDown();
    }
  }

  private static void printMedian(String what, double[] ratios, String goal) {
    double[] sorted = ratios.clone();
    Arrays.sort(sorted);
    System.out.printf("median ratio %s: %.2f (range %.2f-%.2f%s)%n", what,
        sorted[sorted.length / 2], sorted[0], sorted[sorted.length - 1],
        goal.isEmpty() ? "" : "," + goal);
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

  private static long handWrittenResolved(AssignBenchmark state, int calls) {
    long sink = 0;
    for (int i = 0; i < calls; i++) {
      String variant = state.handWrittenResolvedAssign();
      sink += variant == null ? 0 : variant.length();
    }
    return sink;
  }

  private static long prepared(AssignBenchmark state, int calls) {
    long sink = 0;
    for (int i = 0; i < calls; i++) {
      String variant = state.arbiterAssignTargetedPrepared();
      sink += variant == null ? 0 : variant.length();
    }
    return sink;
  }

  private static long preparedPerCall(AssignBenchmark state, int calls) {
    long sink = 0;
    for (int i = 0; i < calls; i++) {
      String variant = state.arbiterAssignTargetedPreparedPerCall();
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
