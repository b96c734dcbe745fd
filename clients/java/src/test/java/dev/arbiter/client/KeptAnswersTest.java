package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Prepared values answer from the answers kept in their {@link KeptValue}s as the map does,
 * call after call, in a config with more value-only tests than a kept value has room for
 * ({@link KeptValue#MAX_TESTS}): the tests past it compute their answer every time.
 */
class KeptAnswersTest {
  private static final int EXPERIMENTS = 24;
  private static final String[] PLANS = {"pro", "free", "team", "enterprise"};
  private static final String[] LOCALES = {"en-US", "EN-gb", "de-DE", "fr-FR", "en"};

  /** Experiment i: plan in a list of its own, locale by a regex of its own, version by a bound. */
  private static Map<String, Object> config() {
    List<Map<String, Object>> experiments = new ArrayList<>();
    for (int i = 0; i < EXPERIMENTS; i++) {
      Map<String, Object> e = Configs.experiment(String.format("7d1c2b3a-0000-4000-8000-%012d", i),
          "kept-" + i, "s-" + i, 1000,
          List.of(Configs.range("control", 0, 500), Configs.range("treatment", 500, 1000)));
      Map<String, Object> targeting = new LinkedHashMap<>();
      targeting.put("plan", Map.of(i % 2 == 0 ? "$in" : "$nin", List.of(PLANS[i % 4], PLANS[(i + 1) % 4])));
      targeting.put("locale", Map.of(i % 3 == 0 ? "$regexi" : "$regex", i % 2 == 0 ? "^en" : "-[A-Z]{2}$"));
      targeting.put("app.version", Map.of(i % 2 == 0 ? "$vgte" : "$vlt", "2." + (i % 5) + ".0"));
      e.put("targeting", targeting);
      experiments.add(e);
    }
    return Configs.doc(1, experiments);
  }

  private static Map<String, Object> attributesOf(int user) {
    Map<String, Object> attributes = new LinkedHashMap<>();
    attributes.put("plan", PLANS[user % 4]);
    attributes.put("locale", LOCALES[user % 5]);
    attributes.put("app", Map.of("version", "2." + (user % 6) + "." + (user % 3)));
    return attributes;
  }

  @Test
  void preparedValuesAnswerAsTheirMapsCallAfterCall() throws Exception {
    try (ReadyClient ready = ReadyClient.start(config(), b -> b.trackExposures(false))) {
      int users = 300;
      List<PreparedAttributes> prepared = new ArrayList<>();
      for (int u = 0; u < users; u++) prepared.add(PreparedAttributes.of(attributesOf(u)));
      int enrolled = 0;
      for (int pass = 0; pass < 3; pass++) {
        for (int i = 0; i < EXPERIMENTS; i++) {
          for (int u = 0; u < users; u++) {
            String fromMap = ready.client.assign("kept-" + i, "user-" + u, attributesOf(u));
            assertEquals(fromMap, ready.client.assign("kept-" + i, "user-" + u, prepared.get(u)),
                "experiment " + i + ", user " + u + ", pass " + pass);
            if (fromMap != null) enrolled++;
          }
        }
      }
      // The conditions leave some users in and some out, so both answers were kept.
      assertTrue(enrolled > 0 && enrolled < 3 * EXPERIMENTS * users, "enrolled " + enrolled);
    }
  }
}
