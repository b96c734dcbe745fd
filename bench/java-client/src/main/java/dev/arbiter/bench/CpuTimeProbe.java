package dev.arbiter.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.function.IntFunction;

/**
 * A companion to the JMH run for a shared, overloaded machine: calls per second of the calling
 * thread's CPU time (ThreadMXBean), which the other processes' load does not shrink the way it
 * shrinks wall-clock throughput. Same state as {@link AssignBenchmark}; prints both rates.
 */
public final class CpuTimeProbe {
  private CpuTimeProbe() {}

  public static void main(String[] args) throws Exception {
    AssignBenchmark state = new AssignBenchmark();
    state.setUp("all");
    try {
      ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
      measure("arbiterAssign", cpu, i -> state.arbiterAssign(), 200_000_000);
      measure("arbiterAssignWithoutExposures", cpu, i -> state.arbiterAssignWithoutExposures(), 200_000_000);
      measure("launchDarklyVariation", cpu, i -> state.launchDarklyVariation(), 4_000_000);
    } finally {
      state.tearDown();
    }
  }

  private static void measure(String name, ThreadMXBean cpu, IntFunction<String> call, int calls) {
    long sink = 0;
    // Warm-up: the JIT compiles the path before anything is timed.
    for (int i = 0; i < calls / 4; i++) sink += call.apply(i).length();
    for (int round = 1; round <= 3; round++) {
      long wall = System.nanoTime();
      long cpuStart = cpu.getCurrentThreadCpuTime();
      for (int i = 0; i < calls; i++) sink += call.apply(i).length();
      double cpuSeconds = (cpu.getCurrentThreadCpuTime() - cpuStart) / 1e9;
      double wallSeconds = (System.nanoTime() - wall) / 1e9;
      System.out.printf("%-30s round %d: %,.0f calls per CPU second, %,.0f per wall second%n",
          name, round, calls / cpuSeconds, calls / wallSeconds);
    }
    if (sink == 42) System.out.println();
  }
}
