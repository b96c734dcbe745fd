package dev.arbiter.bench;

/**
 * The goal for exposures at scale: at each number of distinct users (default 16,384,
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
  private ExposureScaleProbe() {}

  public static void main(String[] args) throws Exception {
    int[] sizes = args.length > 0 ? new int[args.length] : new int[] {16_384, 65_536, 262_144, 1_048_576};
    for (int i = 0; i < args.length; i++) sizes[i] = Integer.parseInt(args[i]);
    StringBuilder summary = new StringBuilder();
    for (int users : sizes) {
      AssignBenchmark state = new AssignBenchmark();
      state.users = users;
      state.setUp("arbiterAssign");
      try {
        OnOffRounds r = OnOffRounds.measure(i -> state.arbiterAssign(),
            i -> state.arbiterAssignWithoutExposures(),
            (round, off, on) -> System.out.printf("%,9d users round %d: exposures off %,.0f, on %,.0f"
                + " calls per CPU second: %.2f%n", users, round, off, on, on / off));
        long sentBefore = state.exposuresSent();
        if (state.exposuresDropped() != 0 || sentBefore != users) {
          throw new IllegalStateException("exposures dropped or re-sent while measured");
        }
        summary.append(String.format("%,9d users: %s, exposures sent %,d, dropped %d%n", users,
            r.summary(), sentBefore, state.exposuresDropped()));
      } finally {
        state.tearDown();
      }
    }
    System.out.print(summary);
  }
}
