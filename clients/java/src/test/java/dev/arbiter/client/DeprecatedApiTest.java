package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The 0.1.0 names ({@code …Ms(long)} setters, String event types) keep working for one release,
 * deprecated for removal, each pointing at its replacement. Only the tests that call them
 * suppress the compiler's removal warning.
 */
class DeprecatedApiTest {
  private static final String SINCE = "0.2.0";

  private static void assertDeprecatedForRemoval(Method m) {
    Deprecated d = m.getAnnotation(Deprecated.class);
    assertNotNull(d, m.getName() + " is @Deprecated");
    assertTrue(d.forRemoval(), m.getName() + " forRemoval");
    assertEquals(SINCE, d.since(), m.getName() + " since");
  }

  @Test
  void everyMillisecondSetterIsDeprecatedBesideItsDurationForm() throws Exception {
    TreeSet<String> replaced = new TreeSet<>();
    for (Method m : Arbiter.Builder.class.getMethods()) {
      if (!m.getName().endsWith("Ms")) continue;
      assertEquals(List.of(long.class), List.of(m.getParameterTypes()), m.getName());
      assertDeprecatedForRemoval(m);
      String replacement = m.getName().substring(0, m.getName().length() - 2);
      Arbiter.Builder.class.getMethod(replacement, Duration.class);
      replaced.add(replacement);
    }
    TreeSet<String> durationSetters = DurationOptionsTest.durationSetters().stream()
        .map(Method::getName).collect(Collectors.toCollection(TreeSet::new));
    assertEquals(durationSetters, replaced);
  }

  @Test
  void theStringFormOfTrackIsDeprecated() throws Exception {
    assertDeprecatedForRemoval(Arbiter.class.getMethod("track", String.class, Map.class));
    assertTrue(Arbiter.class.getMethod("track", EventType.class, Map.class)
        .getAnnotation(Deprecated.class) == null);
  }

  @Test
  @SuppressWarnings("removal")
  void aMillisecondSetterSetsWhatItsDurationFormSets() throws Exception {
    Arbiter.Builder old = Arbiter.builder().pollIntervalMs(1_001).flushIntervalMs(1_002)
        .retryBaseDelayMs(1_003).retryMaxDelayMs(1_004).retryAfterCapMs(1_005)
        .requestTimeoutMs(1_006).closeTimeoutMs(1_007);
    Arbiter.Builder now = Arbiter.builder().pollInterval(Duration.ofMillis(1_001))
        .flushInterval(Duration.ofMillis(1_002)).retryBaseDelay(Duration.ofMillis(1_003))
        .retryMaxDelay(Duration.ofMillis(1_004)).retryAfterCap(Duration.ofMillis(1_005))
        .requestTimeout(Duration.ofMillis(1_006)).closeTimeout(Duration.ofMillis(1_007));
    for (Method setter : DurationOptionsTest.durationSetters()) {
      String name = setter.getName();
      assertEquals(DurationOptionsTest.field(now, name), DurationOptionsTest.field(old, name),
          name);
      assertTrue(!DurationOptionsTest.field(Arbiter.builder(), name)
          .equals(DurationOptionsTest.field(old, name)), name + " was set");
    }
  }

  @Test
  @SuppressWarnings("removal")
  void theWireNamesOfEventTypesStillTrack() throws Exception {
    MemoryLogger logger = new MemoryLogger();
    try (FakeArbiter fake = new FakeArbiter(Configs.doc(1, List.of(Configs.twoArms())));
        Arbiter client = Arbiter.builder().apiKey(fake.apiKey).baseUrl(fake.baseUrl())
            .logger(logger).pollInterval(Duration.ofHours(1)).flushInterval(Duration.ofHours(1))
            .trackExposures(false).build()) {
      assertTrue(client.ready().get());
      Map<String, Object> who = Map.of("experiment_id", Configs.EXPERIMENT, "user_id", "u-1");
      client.track("exposure", who);
      client.track("model_call", Map.of("experiment_id", Configs.EXPERIMENT, "user_id", "u-1",
          "latency_ms", 12));
      client.track("business_event", Map.of("experiment_id", Configs.EXPERIMENT,
          "user_id", "u-1", "business_metric", "revenue", "value", 3));
      client.track("nonsense", who);
      client.track((String) null, who);
      client.flush().join();
      List<Object> types = new ArrayList<>();
      fake.events.values().forEach(e -> types.add(e.get("type")));
      types.sort(null);
      assertEquals(List.of("business_event", "exposure", "model_call"), types);
      assertEquals(2, logger.count("unknown event type"), logger.all());
    }
  }
}
