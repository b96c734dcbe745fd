package dev.arbiter.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The client's own test fakes (from its test jar) for the tests of the integrations, which live
 * in other packages: a {@link FakeArbiter} with the two-arm experiment of {@link Configs}, and a
 * client pointed at it that sends only on {@code flush()}. In this package, on the test
 * classpath only, because the fakes are package-private.
 */
public final class ArbiterFixture implements AutoCloseable {
  public static final String EXPERIMENT = Configs.EXPERIMENT;
  public static final String EXPERIMENT_ID = Configs.EXPERIMENT_ID;

  public final Arbiter client;
  private final FakeArbiter fake;
  private final MemoryLogger logger = new MemoryLogger();

  public ArbiterFixture(boolean recordModelText) throws Exception {
    fake = new FakeArbiter(Configs.doc(1, List.of(Configs.twoArms())));
    client = Arbiter.builder().apiKey(fake.apiKey).baseUrl(fake.baseUrl()).logger(logger)
        .trackExposures(false).recordModelText(recordModelText)
        .pollInterval(Duration.ofHours(1)).flushInterval(Duration.ofHours(1))
        .sendFullBatches(false).build();
    if (!client.ready().get()) throw new IllegalStateException("the fake config did not load");
  }

  /** The first {@code count} users ("user-N") enrolled in the experiment. */
  public List<String> enrolledUsers(int count) {
    List<String> users = new ArrayList<>();
    for (int i = 0; users.size() < count; i++) {
      if (client.assign(EXPERIMENT, "user-" + i) != null) users.add("user-" + i);
    }
    return users;
  }

  /** A user the experiment leaves out. */
  public String userNotEnrolled() {
    for (int i = 0; ; i++) {
      if (client.assign(EXPERIMENT, "user-" + i) == null) return "user-" + i;
    }
  }

  /** Flushes the client, then the events of {@code type} the fake server stored. */
  public List<Map<String, Object>> stored(String type) {
    client.flush().join();
    return fake.events.values().stream().filter(e -> type.equals(e.get("type")))
        .collect(Collectors.toList());
  }

  /** How many logged lines contain {@code fragment}. */
  public long logged(String fragment) {
    return logger.count(fragment);
  }

  @Override
  public void close() {
    client.close();
    fake.close();
  }
}
