package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * exposureAttributes: an exposure carries its call's attributes as {@code metadata.attributes}
 * only when the caller opts in (testdata/exposure-attributes.json, read in place by every client).
 */
class ExposureAttributesTest {
  private static final Map<String, Object> SHARED =
      RepoFiles.json("testdata/exposure-attributes.json");
  private static final Map<String, Object> ELIGIBILITY = RepoFiles.json("testdata/eligibility.json");
  private static final String OPEN = (String) SHARED.get("experiment");

  private FakeArbiter fake;
  private Arbiter client;
  private MemoryLogger logger;
  private int delivered;

  @AfterEach
  void stop() {
    if (client != null) client.close();
    if (fake != null) fake.close();
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> cases(Map<String, Object> file) {
    return (List<Map<String, Object>>) file.get("cases");
  }

  @SuppressWarnings("unchecked")
  private void start(Map<String, Object> file, Boolean exposureAttributes) throws Exception {
    fake = new FakeArbiter((Map<String, Object>) file.get("config"));
    logger = new MemoryLogger();
    Arbiter.Builder b = Arbiter.builder().apiKey(fake.apiKey).baseUrl(fake.baseUrl())
        .logger(logger).pollInterval(Duration.ofHours(1)).flushInterval(Duration.ofHours(1));
    if (exposureAttributes != null) b.exposureAttributes(exposureAttributes);
    client = b.build();
    assertTrue(client.ready().get(30, TimeUnit.SECONDS));
  }

  /** The case's attributes with its fill applied (a fresh map), or null when it has none. */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> attributesOf(Map<String, Object> c) {
    Object attributes = c.get("attributes");
    if (attributes == null) return null;
    Map<String, Object> out = new LinkedHashMap<>((Map<String, Object>) attributes);
    Map<String, Object> fill = (Map<String, Object>) c.get("fill");
    if (fill != null) {
      out.put((String) fill.get("key"),
          ((String) fill.get("text")).repeat(((Number) fill.get("count")).intValue()));
    }
    return out;
  }

  /** The events stored since the last call, in delivery order. */
  private List<Map<String, Object>> sent() {
    client.flush().join();
    List<Map<String, Object>> out = new ArrayList<>();
    List<List<String>> deliveries = new ArrayList<>(fake.deliveries);
    for (List<String> batch : deliveries.subList(delivered, deliveries.size())) {
      for (String id : batch) out.add(fake.events.get(id));
    }
    delivered = deliveries.size();
    return out;
  }

  private static Map<String, Object> metadata(Map<String, ?> attributes) {
    return attributes == null ? null : Map.of("attributes", attributes);
  }

  @Test
  void offByDefaultAsTheSharedDefaultsSay() throws Exception {
    @SuppressWarnings("unchecked")
    Map<String, Object> switches =
        (Map<String, Object>) RepoFiles.json("testdata/client-defaults.json").get("switches");
    Field field = Arbiter.Builder.class.getDeclaredField("exposureAttributes");
    field.setAccessible(true);
    assertEquals(switches.get("exposureAttributes"), field.get(Arbiter.builder()));
    assertEquals(Boolean.FALSE, switches.get("exposureAttributes"));
  }

  @Test
  void offEveryExposureIsSentWithoutMetadata() throws Exception {
    start(SHARED, null);
    List<Object> users = new ArrayList<>();
    for (Map<String, Object> c : cases(SHARED)) {
      client.assign(OPEN, (String) c.get("user_id"), attributesOf(c));
      users.add(c.get("user_id"));
    }
    List<Map<String, Object>> events = sent();
    assertEquals(users, events.stream().map(e -> e.get("user_id")).collect(java.util.stream.Collectors.toList()));
    for (Map<String, Object> e : events) assertFalse(e.containsKey("metadata"), e.toString());
  }

  @Test
  void onEachExposureCarriesExactlyTheAttributesOrNonePastTheLimit() throws Exception {
    start(SHARED, true);
    List<Object> want = new ArrayList<>();
    for (Map<String, Object> c : cases(SHARED)) {
      Map<String, Object> attributes = attributesOf(c);
      assertEquals("treatment", client.assign(OPEN, (String) c.get("user_id"), attributes));
      want.add(Arrays.asList(c.get("name"),
          Boolean.TRUE.equals(c.get("sent")) ? metadata(attributes) : null));
    }
    List<Map<String, Object>> events = sent();
    List<Object> got = new ArrayList<>();
    for (int i = 0; i < events.size(); i++) {
      got.add(Arrays.asList(cases(SHARED).get(i).get("name"), events.get(i).get("metadata")));
    }
    assertEquals(want, got);
    assertEquals(1, logger.count("without its attributes"), logger.all());
  }

  /** PreparedAttributes send exactly the metadata their maps send, on every surface. */
  @Test
  void preparedAttributesCarryTheSameMetadataAsTheirMaps() throws Exception {
    start(SHARED, true);
    List<Object> want = new ArrayList<>();
    List<Object> got = new ArrayList<>();
    int carried = 0;
    for (Map<String, Object> c : cases(SHARED)) {
      Map<String, Object> attributes = attributesOf(c);
      PreparedAttributes prepared = PreparedAttributes.of(attributes);
      String user = (String) c.get("user_id");
      client.assign(OPEN, user, attributes);
      Object plain = sent().get(0).get("metadata");
      if (plain != null) carried++;
      // Other users, so that each surface sends a first exposure of its own.
      client.assign(OPEN, user + "-a", prepared);
      client.getPrompt(OPEN, user + "-p", "default", prepared);
      client.getVariables(OPEN, user + "-v", Map.of(), prepared);
      client.interceptModelCall(OPEN, user + "-m", prepared, variant -> "ok");
      for (String suffix : List.of("-a", "-p", "-v", "-m")) {
        want.add(Arrays.asList(user + suffix, plain));
      }
      for (Map<String, Object> e : sent()) {
        if ("exposure".equals(e.get("type"))) got.add(Arrays.asList(e.get("user_id"), e.get("metadata")));
      }
    }
    assertEquals(want, got);
    assertTrue(carried > 0 && carried < cases(SHARED).size(), "some cases carry metadata, some not");
  }

  /** Held-out users' holdout exposures carry them too; a user not targeted sends nothing. */
  @Test
  @SuppressWarnings("unchecked")
  void eligibilityCasesSendTheSameExposuresEachWithItsAttributes() throws Exception {
    start(ELIGIBILITY, true);
    List<Object> got = new ArrayList<>();
    List<Object> want = new ArrayList<>();
    for (Map<String, Object> c : cases(ELIGIBILITY)) {
      Map<String, ?> attributes = (Map<String, ?>) c.get("attributes");
      assertEquals(c.get("variant"),
          client.assign((String) c.get("experiment"), (String) c.get("user_id"), attributes));
      for (Map<String, Object> e : sent()) {
        got.add(Arrays.asList(c.get("name"), e.get("experiment_id"), e.get("variant"),
            e.get("metadata")));
      }
      for (Map<String, Object> e : (List<Map<String, Object>>) c.get("exposures")) {
        want.add(Arrays.asList(c.get("name"), e.get("experiment_id"), e.get("variant"),
            metadata(attributes)));
      }
    }
    assertEquals(want, got);
  }

  @Test
  void attributesThatAreNotJsonAreDroppedWithoutThrowing() throws Exception {
    start(SHARED, true);
    Map<String, Object> cycle = new HashMap<>();
    cycle.put("self", cycle);
    Map<Object, Object> intKey = new HashMap<>();
    intKey.put(1, "x");
    List<Map<String, ?>> bad = List.of(Map.of("nan", Double.NaN),
        Map.of("inf", Double.POSITIVE_INFINITY), Map.of("who", new Object()),
        Map.of("when", java.time.Instant.EPOCH),
        Map.of("inner", intKey), cycle);
    List<String> users = new ArrayList<>();
    for (int i = 0; i < bad.size(); i++) {
      String user = "u-" + i;
      Map<String, ?> attributes = bad.get(i);
      assertDoesNotThrow(() -> client.assign(OPEN, user, attributes));
      users.add(user);
    }
    List<Map<String, Object>> events = sent();
    assertEquals(users, events.stream().map(e -> e.get("user_id")).collect(java.util.stream.Collectors.toList()));
    for (Map<String, Object> e : events) assertFalse(e.containsKey("metadata"), e.toString());
    assertEquals(1, logger.count("without its attributes"), logger.all());
  }

  @Test
  void theAttributesAreCopiedWhenTheExposureIsQueued() throws Exception {
    start(SHARED, true);
    Map<String, Object> attributes = new HashMap<>(Map.of("plan", "pro"));
    client.assign(OPEN, "u", attributes);
    attributes.put("plan", "free");
    assertEquals(metadata(Map.of("plan", "pro")), sent().get(0).get("metadata"));
  }

  @Test
  void theFirstCallOfTheDayGivesTheAttributes() throws Exception {
    start(SHARED, true);
    client.assign(OPEN, "u", Map.of("plan", "pro"));
    client.getPrompt(OPEN, "u", "default", Map.of("plan", "team"));
    client.getVariables(OPEN, "u", Map.of(), Map.of("plan", "free"));
    List<Object> metadata = new ArrayList<>();
    for (Map<String, Object> e : sent()) metadata.add(e.get("metadata"));
    assertEquals(List.of(metadata(Map.of("plan", "pro"))), metadata);
  }

  @Test
  void aModelCallExposureCarriesThemAndItsModelCallNever() throws Exception {
    start(SHARED, true);
    client.interceptModelCall(OPEN, "u", Map.of("plan", "pro"), variant -> "ok");
    client.withUser("w", Map.of("plan", "team"),
        () -> client.interceptModelCall(OPEN, "w", variant -> "ok"));
    List<Object> got = new ArrayList<>();
    for (Map<String, Object> e : sent()) {
      got.add(Arrays.asList(e.get("type"), e.get("user_id"), e.get("metadata")));
    }
    assertEquals(List.of(
        Arrays.asList("exposure", "u", metadata(Map.of("plan", "pro"))),
        Arrays.asList("model_call", "u", null),
        Arrays.asList("exposure", "w", metadata(Map.of("plan", "team"))),
        Arrays.asList("model_call", "w", null)), got);
  }

  @Test
  void offAModelCallExposureCarriesNone() throws Exception {
    start(SHARED, null);
    client.interceptModelCall(OPEN, "u", Map.of("plan", "pro"), variant -> "ok");
    List<Object> got = new ArrayList<>();
    for (Map<String, Object> e : sent()) got.add(e.get("metadata"));
    assertEquals(Arrays.asList(null, null), got);
  }
}
