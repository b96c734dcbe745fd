package dev.arbiter.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.function.IntFunction;

/**
 * Exposures on against off, as the exposure probes measure them: one warm-up of each (the JIT
 * compiles both paths before anything is timed), then {@link #ROUNDS} rounds of {@link #CALLS}
 * calls a side, off then on, alternating so that a change of load falls on both. Rates are calls
 * per second of the calling thread's CPU time (the machine is shared).
 */
final class OnOffRounds {
  static final int ROUNDS = 3;
  /** Calls a round: a CPU second or two at the measured rates, ten passes over a million users. */
  static final int CALLS = 10_000_000;

  /** Told each round's rates as it ends. */
  interface Listener {
    void round(int round, double off, double on);
  }

  private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

  /** Sorted, one per round. */
  final double[] off = new double[ROUNDS];
  final double[] on = new double[ROUNDS];
  final double[] ratios = new double[ROUNDS];

  private OnOffRounds() {}

  static OnOffRounds measure(IntFunction<String> on, IntFunction<String> off, Listener listener) {
    rate(on, CALLS / 4);
    rate(off, CALLS / 4);
    OnOffRounds r = new OnOffRounds();
    for (int round = 0; round < ROUNDS; round++) {
      r.off[round] = rate(off, CALLS);
      r.on[round] = rate(on, CALLS);
      r.ratios[round] = r.on[round] / r.off[round];
      listener.round(round + 1, r.off[round], r.on[round]);
    }
    Arrays.sort(r.ratios);
    Arrays.sort(r.on);
    Arrays.sort(r.off);
    return r;
  }

  /** "off X M/s, on Y M/s (medians), on/off median R (range A-B)". */
  String summary() {
    return String.format("off %.1f M/s, on %.1f M/s (medians), on/off median %.2f (range %.2f-%.2f)",
        off[ROUNDS / 2] / 1e6, on[ROUNDS / 2] / 1e6, ratios[ROUNDS / 2], ratios[0],
        ratios[ROUNDS - 1]);
  }

  private static double rate(IntFunction<String> call, int calls) {
    long sink = 0;
    long start = CPU.getCurrentThreadCpuTime();
    for (int i = 0; i < calls; i++) sink += call.apply(i).length();
    double seconds = (CPU.getCurrentThreadCpuTime() - start) / 1e9;
    if (sink == 42) System.out.println();
    return calls / seconds;
  }
}
