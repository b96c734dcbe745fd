package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** testdata/eligibility.json through the client: targeting, then the bucket, on every surface. */
class EligibilityVectorsTest {
  private static final Map<String, Object> VECTORS = RepoFiles.json("testdata/eligibility.json");

  private FakeArbiter fake;
  private Arbiter client;

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> cases() {
    return (List<Map<String, Object>>) VECTORS.get("cases");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> config() {
    return (Map<String, Object>) VECTORS.get("config");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, ?> attributesOf(Map<String, Object> c) {
    return (Map<String, ?>) c.get("attributes");
  }

  @BeforeEach
  void start() throws Exception {
    fake = new FakeArbiter(config());
    client = Arbiter.builder().apiKey(fake.apiKey).baseUrl(fake.baseUrl())
        .logger(new MemoryLogger()).pollInterval(Duration.ofHours(1))
        .flushInterval(Duration.ofHours(1)).build();
    assertTrue(client.ready().get(30, TimeUnit.SECONDS));
  }

  @AfterEach
  void stop() {
    client.close();
    fake.close();
  }

  @Test
  void theFileHasTargetedUsersOnBothSides() {
    List<Object> variants = new ArrayList<>();
    for (Map<String, Object> c : cases()) {
      if ("pro-english".equals(c.get("experiment"))) variants.add(c.get("variant"));
    }
    assertTrue(variants.contains(null));
    assertTrue(variants.stream().anyMatch(v -> v != null));
  }

  @Test
  void everyCaseAssignsPromptsAndMergesAsItSays() {
    Map<String, Object> defaults = Map.of("v", 1L);
    for (Map<String, Object> c : cases()) {
      String experiment = (String) c.get("experiment");
      String user = (String) c.get("user_id");
      Map<String, ?> attributes = attributesOf(c);
      Map<String, Object> got = new LinkedHashMap<>();
      got.put("name", c.get("name"));
      got.put("assign", client.assign(experiment, user, attributes));
      got.put("prompt", client.getPrompt(experiment, user, "default", attributes).variant());
      got.put("variables", client.getVariables(experiment, user, defaults, attributes));
      Map<String, Object> want = new LinkedHashMap<>();
      want.put("name", c.get("name"));
      want.put("assign", c.get("variant"));
      want.put("prompt", c.get("variant"));
      want.put("variables", defaults);
      assertEquals(want, got);
    }
  }

  @Test
  void anExposureOnlyForUsersTheTargetingAdmits() throws Exception {
    Set<List<Object>> expected = new HashSet<>();
    Map<String, String> ids = new HashMap<>();
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> experiments = (List<Map<String, Object>>) config().get("experiments");
    for (Map<String, Object> e : experiments) ids.put((String) e.get("name"), (String) e.get("id"));
    for (Map<String, Object> c : cases()) {
      client.assign((String) c.get("experiment"), (String) c.get("user_id"), attributesOf(c));
      if (c.get("variant") != null) {
        expected.add(List.of(ids.get(c.get("experiment")), c.get("user_id"), c.get("variant")));
      }
    }
    client.flush().get(30, TimeUnit.SECONDS);
    Set<List<Object>> stored = new HashSet<>();
    for (Map<String, Object> e : fake.events.values()) {
      stored.add(List.of(e.get("experiment_id"), e.get("user_id"), e.get("variant")));
    }
    assertEquals(expected, stored);
  }

  @Test
  void withUserAndInterceptModelCallReadTheAttributes() {
    Map<String, Object> c = cases().stream()
        .filter(x -> "pro-english".equals(x.get("experiment")) && x.get("variant") != null)
        .findFirst().orElse(null);
    assertNotNull(c);
    String experiment = (String) c.get("experiment");
    String user = (String) c.get("user_id");
    List<String> seen = new ArrayList<>();
    client.interceptModelCall(experiment, user, attributesOf(c), v -> seen.add(v));
    // without attributes the targeting reads {}: no plan, so not targeted
    client.interceptModelCall(experiment, user, v -> seen.add(v));
    // a withUser scope lends its attributes to the calls made inside it
    client.withUser(user, attributesOf(c), () -> {
      client.interceptModelCall(experiment, v -> seen.add(v));
      client.interceptModelCall(experiment, user, v -> seen.add(v));
    });
    List<String> want = new ArrayList<>();
    want.add((String) c.get("variant"));
    want.add(null);
    want.add((String) c.get("variant"));
    want.add((String) c.get("variant"));
    assertEquals(want, seen);
  }
}
