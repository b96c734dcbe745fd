package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Java client against the real server through an experiment's lifecycle: a draft gives
 * null and sends nothing; once an experiment is stopped with a shipped variant, 10,000 users get
 * it (with its prompt and variables) after the client's next poll, and no exposure of it is sent
 * from then on, as the client's counters, the usage meter and the live view read back show.
 */
class LifecycleRealServerTest {
  private static final int USERS = 10_000;
  /** Users asked while the experiment runs: their exposures are the only ones it may store. */
  private static final int EARLY = 200;
  private static RealServer server;
  private static String publishable;

  @BeforeAll
  static void start() throws Exception {
    server = RealServer.start();
    publishable = (String) ((Map<?, ?>) server.session("POST", "/v1/keys",
        Map.of("scope", "publishable"))).get("key");
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) server.close();
  }

  private static String created(String name, String status) throws Exception {
    Map<String, Object> config = new LinkedHashMap<>();
    config.put("name", name);
    config.put("salt", "salt-" + name);
    config.put("bucket_count", 1_000L);
    config.put("allocation", List.of(Map.of("variant", "control", "weight", 45L),
        Map.of("variant", "concise", "weight", 45L)));
    config.put("variants", List.of(
        Map.of("key", "control", "prompt", "prompt of control",
            "variables", Map.of("temperature", 0.7)),
        Map.of("key", "concise", "prompt", "prompt of concise",
            "variables", Map.of("temperature", 0.2))));
    config.put("metrics", List.of());
    if (status != null) config.put("status", status);
    return (String) ((Map<?, ?>) server.session("POST", "/v1/experiments", config)).get("id");
  }

  private static long eventsUsed() throws Exception {
    Map<?, ?> usage = (Map<?, ?>) server.session("GET", "/v1/usage", null);
    return (Long) ((Map<?, ?>) usage.get("events")).get("used");
  }

  /** The live view's stored exposures per arm (empty until the worker has folded them). */
  private static Map<String, Integer> liveExposures(String experiment) {
    try {
      Map<?, ?> live = (Map<?, ?>) server.session("GET",
          "/v1/experiments/" + experiment + "/live", null);
      Map<String, Integer> out = new HashMap<>();
      for (Map.Entry<?, ?> e : ((Map<?, ?>) live.get("arms")).entrySet()) {
        long n = (Long) ((Map<?, ?>) e.getValue()).get("exposures");
        if (n > 0) out.put((String) e.getKey(), (int) n);
      }
      return out;
    } catch (Exception e) {
      return Map.of();
    }
  }

  /** Whether a config request followed a 200 among those from {@code from} on. */
  private static boolean polledAfterA200(List<String[]> exchanges, int from) {
    synchronized (exchanges) {
      for (int i = from; i < exchanges.size() - 1; i++) {
        if ("200".equals(exchanges.get(i)[2])) return true;
      }
      return false;
    }
  }

  @Test
  void aDraftSendsNothingAndAStopServesTheShippedVariantWithoutExposures() throws Exception {
    String draftId = created("java-not-yet", "draft");
    String shippedId = created("java-ship-me", null);
    MemoryLogger logger = new MemoryLogger();
    try (LossyProxy proxy = new LossyProxy(server.baseUrl);
        Arbiter client = Arbiter.builder().apiKey(publishable).baseUrl(proxy.baseUrl())
            .experiments("java-not-yet", "java-ship-me").pollInterval(Duration.ofMillis(100))
            .flushInterval(Duration.ofMillis(3_600_000)).queueCapacity(100_000).logger(logger)
            .build()) {
      // Each config request, with the status the server answered.
      proxy.recorded = path -> path.equals("/v1/config");
      assertTrue(client.ready().get());
      long usedBefore = eventsUsed();

      // The draft: null for everyone, the caller's defaults, nothing sent.
      List<String> wrong = new ArrayList<>();
      for (int i = 0; i < USERS; i++) {
        if (client.assign("java-not-yet", "user-" + i) != null) wrong.add("user-" + i);
      }
      assertEquals(List.of(), wrong);
      assertEquals(new PromptResult(null, "DEFAULT", true),
          client.getPrompt(draftId, "user-1", "DEFAULT"));
      client.flush().get();
      assertEquals(0, client.stats().sent());

      // While it runs: each user's bucket decides, and the enrolled users' exposures go out.
      Map<String, Integer> arms = new HashMap<>();
      for (int i = 0; i < EARLY; i++) {
        String v = client.assign("java-ship-me", "user-" + i);
        if (v != null) arms.merge(v, 1, Integer::sum);
      }
      assertEquals(Set.of("control", "concise"), arms.keySet());
      client.flush().get();
      long exposed = arms.values().stream().mapToInt(Integer::intValue).sum();
      assertEquals(exposed, client.stats().sent());

      Map<String, Object> stop = new LinkedHashMap<>();
      stop.put("conclusion", "ship");
      stop.put("variant", "concise");
      stop.put("reason", "shorter answers won");
      Map<?, ?> stopped = (Map<?, ?>) server.session("POST",
          "/v1/experiments/" + shippedId + "/stop", stop);
      assertEquals("stopped", stopped.get("status"));
      assertEquals("concise", ((Map<?, ?>) stopped.get("stop")).get("served_variant"));

      // The next poll that brings a new document (200), then one more: the first is installed.
      int polls = proxy.exchanges.size();
      Wait.until(() -> polledAfterA200(proxy.exchanges, polls));
      for (int i = 0; i < USERS; i++) {
        if (!"concise".equals(client.assign("java-ship-me", "user-" + i))) wrong.add("user-" + i);
      }
      assertEquals(List.of(), wrong);
      assertEquals(new PromptResult("concise", "prompt of concise", false),
          client.getPrompt("java-ship-me", "user-9999", "DEFAULT"));
      assertEquals(Map.of("temperature", 0.2),
          client.getVariables(shippedId, "user-9999", Map.of()));
      assertEquals("concise", client.interceptModelCall("java-ship-me", "user-9998", v -> v));

      // Nothing more left the client; the server stored only the exposures made while it ran.
      client.flush().get();
      assertEquals(exposed, client.stats().sent(), client.stats().toString());
      assertEquals(usedBefore + exposed, eventsUsed());
      Wait.until(() -> liveExposures(shippedId).equals(arms));
      assertEquals(Map.of(), liveExposures(draftId));
      assertEquals(List.of(), logger.lines);
    }
  }
}
