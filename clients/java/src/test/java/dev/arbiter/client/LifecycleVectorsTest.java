package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * testdata/lifecycle.json through the client, with eligibility.json's runner: a draft gives null
 * and sends nothing, a stopped experiment serves its variant to every eligible user and sends
 * only its holdouts' exposures, an archived one is absent, an entry without status runs.
 */
class LifecycleVectorsTest extends VectorFileRunner {
  private static final Map<String, Object> VECTORS = RepoFiles.json("testdata/lifecycle.json");

  LifecycleVectorsTest() {
    super(VECTORS);
  }

  /** The experiment's state as the config says it: absent reads as running; no entry, archived. */
  private static String statusOf(String name) {
    Map<String, Object> entry = VectorCases.experiment(VECTORS, name);
    if (entry == null) return "archived";
    Object status = entry.get("status");
    return status == null ? "running" : (String) status;
  }

  private static String idOf(String name) {
    Map<String, Object> entry = VectorCases.experiment(VECTORS, name);
    return entry == null ? null : (String) entry.get("id");
  }

  @Test
  void theFileHasEveryState() {
    Set<String> states = new HashSet<>();
    Set<Object> reasons = new HashSet<>();
    for (Map<String, Object> c : VectorCases.cases(VECTORS)) {
      states.add(statusOf((String) c.get("experiment")));
      reasons.add(c.get("reason"));
      if (!"running".equals(statusOf((String) c.get("experiment")))) {
        // A draft or stopped experiment never sends its own exposure.
        for (Map<String, Object> e : VectorCases.exposuresOf(c)) {
          assertTrue(!e.get("experiment_id").equals(idOf((String) c.get("experiment"))),
              String.valueOf(c.get("name")));
        }
      }
    }
    assertEquals(Set.of("draft", "running", "stopped", "archived"), states);
    assertTrue(reasons.containsAll(Arrays.asList("draft", "unknown_experiment", "not_targeted",
        "held_out")), reasons.toString());
    boolean withoutStatus = false;
    for (Object e : (List<?>) VectorCases.config(VECTORS).get("experiments")) {
      withoutStatus |= !((Map<?, ?>) e).containsKey("status");
    }
    assertTrue(withoutStatus, "an entry without status");
  }

  /**
   * Every case through {@code interceptModelCall}: the case's variant, its exposures, and a
   * {@code model_call} only for a running experiment's enrolled user.
   */
  @Test
  void everyCaseThroughAModelCall() {
    for (Map<String, Object> c : VectorCases.cases(VECTORS)) {
      String experiment = (String) c.get("experiment");
      String user = (String) c.get("user_id");
      List<String> seen = new ArrayList<>();
      client.interceptModelCall(experiment, user, VectorCases.attributesOf(c), v -> seen.add(v));
      List<List<Object>> want = VectorCases.expectedExposures(c);
      if (c.get("variant") != null && "running".equals(statusOf(experiment))) {
        want.add(Arrays.asList("model_call", idOf(experiment), user, null));
      }
      Map<String, Object> got = new LinkedHashMap<>();
      got.put("name", c.get("name"));
      got.put("given", seen);
      got.put("sent", run.sentSinceLastCall());
      Map<String, Object> expected = new LinkedHashMap<>();
      expected.put("name", c.get("name"));
      expected.put("given", Arrays.asList(c.get("variant")));
      expected.put("sent", want);
      assertEquals(expected, got);
    }
  }
}
