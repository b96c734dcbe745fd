package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * testdata/coverage.json through the client, with eligibility.json's runner: a running
 * experiment admits the users its coverage hash lets in (after holdouts and targeting, before
 * the bucket), the others get null and send no exposure of it; a stopped one ignores coverage.
 */
class CoverageVectorsTest {
  private static final Map<String, Object> VECTORS = RepoFiles.json("testdata/coverage.json");

  private ReadyClient ready;
  private VectorCases run;

  @BeforeEach
  void start() throws Exception {
    ready = ReadyClient.start(VectorCases.config(VECTORS),
        b -> b.pollInterval(Duration.ofHours(1)));
    run = new VectorCases(VECTORS, ready);
  }

  @AfterEach
  void stop() {
    ready.close();
  }

  private static List<Map<String, Object>> casesOf(String experiment) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Map<String, Object> c : VectorCases.cases(VECTORS)) {
      if (experiment.equals(c.get("experiment"))) out.add(c);
    }
    return out;
  }

  @Test
  void theFileReachesEveryStepAndRaisingCoverageMovesNoOne() {
    Set<Object> reasons = new HashSet<>();
    for (Map<String, Object> c : VectorCases.cases(VECTORS)) reasons.add(c.get("reason"));
    assertTrue(reasons.containsAll(List.of("not_covered", "not_enrolled", "held_out",
        "not_targeted", "draft")), reasons.toString());
    List<Map<String, Object>> ten = casesOf("ramp-10");
    List<Map<String, Object>> fifty = casesOf("ramp-50");
    List<Map<String, Object>> full = casesOf("ramp-100");
    int admitted = 0;
    for (int i = 0; i < ten.size(); i++) {
      if ("not_covered".equals(ten.get(i).get("reason"))) continue;
      admitted++;
      assertEquals(ten.get(i).get("variant"), fifty.get(i).get("variant"));
      assertEquals(ten.get(i).get("variant"), full.get(i).get("variant"));
    }
    assertTrue(admitted > 0);
  }

  @Test
  void everyCaseAssignsAndSendsItsExposuresInOrder() {
    run.everyCase(false);
  }

  @Test
  void everyCaseAssignsAndSendsItsExposuresInOrderThroughPreparedAttributes() {
    run.everyCase(true);
  }
}
