package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * testdata/eligibility.json through the client: holdouts, the layer, targeting, then the bucket,
 * on every surface, with the exposures each case sends.
 */
class EligibilityVectorsTest extends VectorFileRunner {
  private static final Map<String, Object> VECTORS = RepoFiles.json("testdata/eligibility.json");

  EligibilityVectorsTest() {
    super(VECTORS);
  }

  private static List<Map<String, Object>> cases() {
    return VectorCases.cases(VECTORS);
  }

  private static Map<String, ?> attributesOf(Map<String, Object> c) {
    return VectorCases.attributesOf(c);
  }

  private static List<Map<String, Object>> exposuresOf(Map<String, Object> c) {
    return VectorCases.exposuresOf(c);
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
        run.sentSinceLastCall());
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
