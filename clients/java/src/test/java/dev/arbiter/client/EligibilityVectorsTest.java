package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * testdata/eligibility.json through the client: holdouts, the layer, targeting, then the bucket,
 * on every surface, with the exposures each case sends.
 */
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

  private ReadyClient ready;

  @BeforeEach
  void start() throws Exception {
    ready = ReadyClient.start(config(), b -> b.pollInterval(Duration.ofHours(1)));
    fake = ready.fake;
    client = ready.client;
  }

  @AfterEach
  void stop() {
    ready.close();
  }

  @Test
  void theFileHasEveryOutcome() {
    Set<Object> reasons = new HashSet<>();
    Set<Object> holdoutVariants = new HashSet<>();
    for (Map<String, Object> c : cases()) {
      reasons.add(c.get("reason"));
      for (Map<String, Object> e : exposuresOf(c)) {
        if (((String) e.get("experiment_id")).endsWith("a001")) {
          holdoutVariants.add(e.get("variant"));
        }
      }
    }
    Set<Object> all = new HashSet<>();
    all.add(null);
    all.addAll(List.of("held_out", "not_in_layer", "not_targeted", "not_enrolled"));
    assertEquals(all, reasons);
    assertEquals(Set.of("holdout", "general"), holdoutVariants);
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> exposuresOf(Map<String, Object> c) {
    return (List<Map<String, Object>>) c.get("exposures");
  }

  /** Every case: the variant on each surface, and exactly the exposures it sends, in order. */
  @Test
  void everyCaseAssignsAndSendsItsExposuresInOrder() {
    everyCase(false);
  }

  /** The same cases with each user's attributes as a {@link PreparedAttributes}: the same answers. */
  @Test
  void everyCaseAssignsAndSendsItsExposuresInOrderThroughPreparedAttributes() {
    everyCase(true);
  }

  private void everyCase(boolean prepare) {
    Map<String, Object> defaults = Map.of("v", 1L);
    for (Map<String, Object> c : cases()) {
      String experiment = (String) c.get("experiment");
      String user = (String) c.get("user_id");
      Map<String, ?> attributes = attributesOf(c);
      // One prepared value for the case's three calls, as one request would keep it.
      PreparedAttributes prepared = PreparedAttributes.of(attributes);
      Map<String, Object> got = new LinkedHashMap<>();
      got.put("name", c.get("name"));
      got.put("assign", prepare ? client.assign(experiment, user, prepared)
          : client.assign(experiment, user, attributes));
      got.put("sent", sentSinceLastCall());
      // The same user again, on the other surfaces: the same variant, no exposure sent twice.
      got.put("prompt", (prepare ? client.getPrompt(experiment, user, "default", prepared)
          : client.getPrompt(experiment, user, "default", attributes)).variant());
      got.put("variables", prepare ? client.getVariables(experiment, user, defaults, prepared)
          : client.getVariables(experiment, user, defaults, attributes));
      got.put("sent again", sentSinceLastCall());
      Map<String, Object> want = new LinkedHashMap<>();
      want.put("name", c.get("name"));
      want.put("assign", c.get("variant"));
      List<List<Object>> sent = new ArrayList<>();
      for (Map<String, Object> e : exposuresOf(c)) {
        sent.add(List.of(e.get("experiment_id"), user, e.get("variant")));
      }
      want.put("sent", sent);
      want.put("prompt", c.get("variant"));
      want.put("variables", defaults);
      want.put("sent again", List.of());
      assertEquals(want, got);
    }
  }

  private int delivered;

  /** The exposures the fake received since the last call, in the order sent. */
  private List<List<Object>> sentSinceLastCall() {
    client.flush().join();
    List<List<Object>> sent = new ArrayList<>();
    List<List<String>> deliveries = new ArrayList<>(fake.deliveries);
    for (List<String> batch : deliveries.subList(delivered, deliveries.size())) {
      for (String id : batch) {
        Map<String, Object> e = fake.events.get(id);
        // An exposure as the vectors state it; any other event with its type in front.
        sent.add(e == null ? List.of("refused", id)
            : Arrays.asList(e.get("type"), e.get("experiment_id"), e.get("user_id"),
                e.get("variant")).subList("exposure".equals(e.get("type")) ? 1 : 0, 4));
      }
    }
    delivered = deliveries.size();
    return sent;
  }

  /** A held-out user's model call gets null and records the holdout, once a day, and no call. */
  @Test
  void aHeldOutUsersModelCallRecordsTheHoldoutOnly() {
    Map<String, Object> c = cases().stream()
        .filter(x -> "held_out".equals(x.get("reason")) && exposuresOf(x).size() == 1)
        .findFirst().orElse(null);
    assertNotNull(c);
    String experiment = (String) c.get("experiment");
    String user = (String) c.get("user_id");
    List<String> seen = new ArrayList<>();
    client.interceptModelCall(experiment, user, attributesOf(c), v -> seen.add(v));
    client.interceptModelCall(experiment, user, attributesOf(c), v -> seen.add(v));
    assertEquals(Arrays.asList(null, null), seen);
    Map<String, Object> holdout = exposuresOf(c).get(0);
    assertEquals(List.of(List.of(holdout.get("experiment_id"), user, "holdout")),
        sentSinceLastCall());
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
    // and so do the prepared forms
    PreparedAttributes prepared = PreparedAttributes.of(attributesOf(c));
    client.interceptModelCall(experiment, user, prepared, v -> seen.add(v));
    client.withUser(user, prepared, () -> {
      client.interceptModelCall(experiment, v -> seen.add(v));
      client.interceptModelCall(experiment, user, v -> seen.add(v));
    });
    String got = client.withUser(user, prepared, () -> client.interceptModelCall(experiment, v -> v));
    List<String> want = new ArrayList<>();
    want.add((String) c.get("variant"));
    want.add(null);
    for (int i = 0; i < 5; i++) want.add((String) c.get("variant"));
    assertEquals(want, seen);
    assertEquals(c.get("variant"), got);
  }
}
