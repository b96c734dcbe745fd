package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Java client against the real server, started by the test: local assignment equals
 * {@code POST /v1/assign} for 10,000 users, and events (retried after lost acks) are stored
 * exactly once, as the usage meter and the live exposure counts read back through the API show.
 */
class RealServerTest {
  private static final String NAME = "java-client-parity";
  private static final int USERS = 10_000;
  private static RealServer server;
  private static String experimentId;
  private static String publishable;
  private static String secret;

  @BeforeAll
  static void start() throws Exception {
    server = RealServer.start();
    Map<String, Object> config = new LinkedHashMap<>();
    config.put("name", NAME);
    config.put("salt", "java-parity-salt");
    config.put("bucket_count", 10_000L);
    config.put("allocation", List.of(slice("control"), slice("concise"), slice("formal")));
    config.put("variants", List.of(variant("control", 0.7), variant("concise", 0.2),
        variant("formal", 0.4)));
    config.put("metrics", List.of());
    experimentId = (String) ((Map<?, ?>) server.session("POST", "/v1/experiments", config)).get("id");
    publishable = (String) ((Map<?, ?>) server.session("POST", "/v1/keys",
        Map.of("scope", "publishable"))).get("key");
    secret = (String) ((Map<?, ?>) server.session("POST", "/v1/keys",
        Map.of("scope", "secret"))).get("key");
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) server.close();
  }

  private static Map<String, Object> slice(String variant) {
    return Map.of("variant", variant, "weight", 30L);
  }

  private static Map<String, Object> variant(String key, double temperature) {
    return Map.of("key", key, "prompt", "prompt of " + key,
        "variables", Map.of("temperature", temperature));
  }

  private static List<String> users() {
    List<String> users = new ArrayList<>();
    for (int i = 0; i < USERS; i++) users.add("user-" + i);
    return users;
  }

  /** {@code POST /v1/assign} for every user, 100 requests in flight at a time. */
  private static Map<String, String> serverAssign(String experiment, List<String> users)
      throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    Map<String, String> out = new HashMap<>();
    for (int i = 0; i < users.size(); i += 100) {
      List<CompletableFuture<HttpResponse<String>>> inFlight = new ArrayList<>();
      List<String> chunk = users.subList(i, Math.min(users.size(), i + 100));
      for (String user : chunk) {
        String body = JsonWriter.write(Map.of("experiment_id", experiment, "user_id", user));
        inFlight.add(http.sendAsync(HttpRequest.newBuilder(URI.create(server.baseUrl + "/v1/assign"))
            .header("X-API-Key", secret).header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
            HttpResponse.BodyHandlers.ofString()));
      }
      for (int k = 0; k < chunk.size(); k++) {
        HttpResponse<String> res = inFlight.get(k).get();
        assertEquals(200, res.statusCode(), res.body());
        out.put(chunk.get(k), (String) ((Map<?, ?>) JsonReader.parse(res.body())).get("variant"));
      }
    }
    return out;
  }

  @Test
  void assignEqualsTheServersAssignFor10000UsersByNameAndId() throws Exception {
    List<String> users = users();
    Map<String, String> expected = serverAssign(NAME, users);
    Map<String, String> byId = serverAssign(experimentId, users.subList(0, 1_000));
    try (Arbiter client = Arbiter.builder().apiKey(publishable).baseUrl(server.baseUrl)
        .experiments(NAME, experimentId).trackExposures(false).logger(new MemoryLogger())
        .build()) {
      assertTrue(client.ready().get());
      List<String> mismatches = new ArrayList<>();
      Map<String, Integer> counts = new HashMap<>();
      for (String user : users) {
        String want = expected.get(user);
        counts.merge(String.valueOf(want), 1, Integer::sum);
        String local = client.assign(NAME, user);
        String localById = client.assign(experimentId, user);
        if (!java.util.Objects.equals(want, local) || !java.util.Objects.equals(want, localById)) {
          mismatches.add(user + ": server " + want + ", client " + local + "/" + localById);
        }
        if (byId.containsKey(user) && !java.util.Objects.equals(want, byId.get(user))) {
          mismatches.add(user + ": server by id " + byId.get(user));
        }
        PromptResult p = client.getPrompt(NAME, user, "DEFAULT");
        assertEquals(want == null ? new PromptResult(null, "DEFAULT", true)
            : new PromptResult(want, "prompt of " + want, false), p);
      }
      assertEquals(List.of(), mismatches);
      // 30/30/30 of 10,000 buckets; a tenth of the users are not enrolled.
      for (String arm : List.of("control", "concise", "formal")) {
        assertTrue(counts.get(arm) > 2_700 && counts.get(arm) < 3_300, arm + " " + counts);
      }
      assertTrue(counts.get("null") > 850 && counts.get("null") < 1_150, counts.toString());
    }
  }

  @Test
  void eventsAreStoredExactlyOnceThoughAcksWereLost() throws Exception {
    long usedBefore = eventsUsed();
    MemoryLogger logger = new MemoryLogger();
    try (LossyProxy proxy = new LossyProxy(server.baseUrl)) {
      proxy.acksToLose.set(2);
      Map<String, Integer> exposuresPerArm = new HashMap<>();
      int tracked = 0;
      try (Arbiter client = Arbiter.builder().apiKey(publishable).baseUrl(proxy.baseUrl())
          .logger(logger).batchSize(500).flushInterval(Duration.ofMillis(3_600_000)).pollInterval(Duration.ofMillis(3_600_000))
          .retryBaseDelay(Duration.ofMillis(10)).build()) {
        assertTrue(client.ready().get());
        String firstEnrolled = null;
        for (String user : users()) {
          String variant = client.assign(NAME, user);
          if (variant == null) continue;
          exposuresPerArm.merge(variant, 1, Integer::sum);
          if (firstEnrolled == null) firstEnrolled = user;
        }
        Map<String, Object> metadata = Map.of("order", "A-17", "items", 3L);
        Map<String, Object> revenue = new HashMap<>(Map.of("experiment_id", experimentId,
            "user_id", firstEnrolled, "business_metric", "revenue", "value", 19.99,
            "metadata", metadata));
        client.track(EventType.BUSINESS_EVENT, revenue);
        client.trackBusinessEvent(NAME, firstEnrolled, "checkout", 1);
        String answer = client.interceptModelCall(NAME, firstEnrolled, v -> "answer of " + v);
        assertTrue(answer.startsWith("answer of "));
        exposuresPerArm.merge(client.assign(NAME, firstEnrolled), 1, Integer::sum);
        tracked = 3;
        client.flush().get();
        ArbiterStats stats = client.stats();
        int exposures = exposuresPerArm.values().stream().mapToInt(Integer::intValue).sum();
        assertEquals(exposures + tracked, stats.sent(), stats.toString());
        assertEquals(0, stats.dropped(), stats + "\n" + logger.all());
        assertEquals(0, stats.spilled(), stats.toString());
      }
      assertEquals(2, proxy.acksLost.get(), "two batches were taken and their acks lost");
      int exposures = exposuresPerArm.values().stream().mapToInt(Integer::intValue).sum();
      // Metered at acceptance, once per stored event: the retried batches count once.
      assertEquals(usedBefore + exposures + tracked, eventsUsed());
      // The live view counts stored exposures per arm (once the worker has folded them).
      Wait.until(() -> liveExposures().equals(exposuresPerArm));
      assertEquals(List.of(), logger.lines);
    }
  }

  private static long eventsUsed() throws Exception {
    Map<?, ?> usage = (Map<?, ?>) server.session("GET", "/v1/usage", null);
    return (Long) ((Map<?, ?>) usage.get("events")).get("used");
  }

  private static Map<String, Integer> liveExposures() {
    try {
      Map<?, ?> live = (Map<?, ?>) server.session("GET",
          "/v1/experiments/" + experimentId + "/live", null);
      Map<String, Integer> out = new HashMap<>();
      for (Map.Entry<?, ?> e : ((Map<?, ?>) live.get("arms")).entrySet()) {
        out.put((String) e.getKey(), (int) (long) (Long) ((Map<?, ?>) e.getValue()).get("exposures"));
      }
      return out;
    } catch (Exception e) {
      return Map.of();
    }
  }
}
