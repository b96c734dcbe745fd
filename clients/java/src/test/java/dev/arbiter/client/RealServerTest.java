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
import java.util.TreeMap;
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
    return serverAssign(experiment, users, null);
  }

  /** {@link #serverAssign(String, List)} with each user's attributes (null: none sent). */
  private static Map<String, String> serverAssign(String experiment, List<String> users,
      Map<String, Map<String, Object>> attributes) throws Exception {
    Map<String, String> out = new HashMap<>();
    serverAnswers(experiment, users, attributes)
        .forEach((u, a) -> out.put(u, (String) a.get("variant")));
    return out;
  }

  /** Each user's whole answer from {@code POST /v1/assign}: its variant and its reason. */
  private static Map<String, Map<?, ?>> serverAnswers(String experiment, List<String> users,
      Map<String, Map<String, Object>> attributes) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    Map<String, Map<?, ?>> out = new HashMap<>();
    for (int i = 0; i < users.size(); i += 100) {
      List<CompletableFuture<HttpResponse<String>>> inFlight = new ArrayList<>();
      List<String> chunk = users.subList(i, Math.min(users.size(), i + 100));
      for (String user : chunk) {
        Map<String, Object> request = new LinkedHashMap<>();
        request.put("experiment_id", experiment);
        request.put("user_id", user);
        if (attributes != null) request.put("attributes", attributes.get(user));
        String body = JsonWriter.write(request);
        inFlight.add(http.sendAsync(HttpRequest.newBuilder(URI.create(server.baseUrl + "/v1/assign"))
            .header("X-API-Key", secret).header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
            HttpResponse.BodyHandlers.ofString()));
      }
      for (int k = 0; k < chunk.size(); k++) {
        HttpResponse<String> res = inFlight.get(k).get();
        assertEquals(200, res.statusCode(), res.body());
        out.put(chunk.get(k), (Map<?, ?>) JsonReader.parse(res.body()));
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

  /** Attributes of the shapes targeting reads: strings, numbers, versions, nested, missing. */
  private static Map<String, Object> randomAttributes(java.util.Random rng) {
    Map<String, Object> out = new LinkedHashMap<>();
    Object[][] fields = {
      {"plan", "free", "pro", "team", "PRO"},
      {"locale", "en-US", "EN-gb", "fr-FR", ""},
      {"country", "US", "CU", "FR", 7L},
      {"age", 12L, 18L, 40.5, "30"},
      {"id", "u-1", "u-2", "u-3"},
    };
    for (Object[] field : fields) {
      if (rng.nextDouble() < 0.85) out.put((String) field[0], field[1 + rng.nextInt(field.length - 1)]);
    }
    if (rng.nextDouble() < 0.85) {
      String[] versions = {"2.3.9", "2.4.0", "2.10.1", "v3.0.0-beta"};
      out.put("app", Map.of("version", versions[rng.nextInt(versions.length)]));
    }
    return out;
  }

  /** The layer's experiments and their weights: they fill the layer, one owner per bucket. */
  private static final Map<String, Long> LAYERED = new LinkedHashMap<>(Map.of(
      "java-layered-targeted", 50L, "java-layered-open", 40L, "java-layered-held", 10L));
  private static final List<String> HELD = List.of("java-held-open", "java-layered-held");

  private static Map<String, Object> experiment(String name, Map<String, Object> extra) {
    Map<String, Object> config = new LinkedHashMap<>();
    config.put("name", name);
    config.put("salt", "salt-" + name);
    config.put("bucket_count", 10_000L);
    config.put("allocation", List.of(Map.of("variant", "control", "weight", 45L),
        Map.of("variant", "treatment", "weight", 45L)));
    config.put("metrics", List.of());
    config.putAll(extra);
    return config;
  }

  private static String created(String path, Map<String, Object> body) throws Exception {
    Object made = server.session("POST", path, body);
    assertTrue(made instanceof Map && ((Map<?, ?>) made).containsKey("id"), String.valueOf(made));
    return (String) ((Map<?, ?>) made).get("id");
  }

  /**
   * A targeted experiment, three experiments sharing one layer (one of them targeted), and a
   * holdout over one experiment outside the layer and one inside it: the client answers as
   * {@code POST /v1/assign} for every user and experiment, and sends exactly the exposures it
   * should.
   */
  @Test
  void targetedAssignEqualsTheServersFor10000UsersWithRandomAttributes() throws Exception {
    server.session("POST", "/v1/saved-groups", Map.of("key", "beta", "values", List.of("u-1", 7L)));
    Map<String, Object> clauses = new LinkedHashMap<>();
    clauses.put("plan", Map.of("$ini", List.of("pro", "team")));
    clauses.put("locale", Map.of("$regexi", "^en"));
    clauses.put("app.version", Map.of("$vgte", "2.4.0"));
    clauses.put("country", Map.of("$notInGroup", "beta", "$nin", List.of("CU")));
    clauses.put("age", Map.of("$gte", 18L));
    Map<String, String> ids = new LinkedHashMap<>();
    Map<String, Object> targeting =
        Map.of("$or", List.of(Map.of("id", Map.of("$inGroup", "beta")), clauses));
    ids.put("java-targeted-parity", created("/v1/experiments",
        experiment("java-targeted-parity", Map.of("targeting", targeting))));
    created("/v1/layers",
        Map.of("name", "java-layer", "salt", "java-layer-salt", "bucket_count", 1000L));
    for (Map.Entry<String, Long> e : LAYERED.entrySet()) {
      Map<String, Object> joins =
          new LinkedHashMap<>(Map.of("layer", "java-layer", "layer_weight", e.getValue()));
      if (e.getKey().equals("java-layered-targeted")) {
        joins.put("targeting", Map.of("locale", Map.of("$regexi", "^en")));
      }
      ids.put(e.getKey(), created("/v1/experiments", experiment(e.getKey(), joins)));
    }
    ids.put("java-held-open", created("/v1/experiments", experiment("java-held-open", Map.of())));
    created("/v1/holdouts", Map.of("name", "java-holdout", "salt", "java-holdout-salt",
        "bucket_count", 1000L, "percent", 10L, "experiments", HELD));

    java.util.Random rng = new java.util.Random(29);
    List<String> users = users();
    Map<String, Map<String, Object>> attributes = new HashMap<>();
    for (String user : users) attributes.put(user, randomAttributes(rng));
    Map<String, Map<String, Map<?, ?>>> expected = new LinkedHashMap<>();
    for (String name : ids.keySet()) expected.put(name, serverAnswers(name, users, attributes));
    long usedBefore = eventsUsed();
    MemoryLogger logger = new MemoryLogger();
    try (LossyProxy proxy = new LossyProxy(server.baseUrl);
        // The secret key: the tallies route takes no other.
        Arbiter client = Arbiter.builder().apiKey(secret).baseUrl(proxy.baseUrl())
        .experiments(ids.keySet()).flushInterval(Duration.ofMillis(3_600_000))
        .pollInterval(Duration.ofMillis(3_600_000)).batchSize(1000)
        // every exposure of the run (about 25,000) is queued before the one flush
        .queueCapacity(100_000).logger(logger)
        // each exposure, the holdout's included, carries its user's attributes in its metadata
        .exposureAttributes(true).build()) {
      // The targeting tallies the client sends, with the real route's answers.
      proxy.recorded = path -> path.equals("/v1/targeting-tallies");
      assertTrue(client.ready().get());
      List<String> mismatches = new ArrayList<>();
      for (String name : ids.keySet()) {
        for (String user : users) {
          Object want = expected.get(name).get(user).get("variant");
          String local = client.assign(name, user, attributes.get(user));
          if (!java.util.Objects.equals(want, local)) {
            mismatches.add(name + " " + user + " " + attributes.get(user) + ": server " + want
                + ", client " + local);
          }
        }
      }
      assertEquals(List.of(), mismatches);

      Map<String, Map<?, ?>> targeted = expected.get("java-targeted-parity");
      int admitted = 0;
      java.util.Set<String> seen = new java.util.HashSet<>();
      for (String user : users) {
        Object want = targeted.get(user).get("variant");
        seen.add(String.valueOf(want));
        if (want != null) admitted++;
      }
      // both sides of the targeting, and both arms, are in the sample
      assertTrue(admitted > 500 && admitted < 9_000, "admitted " + admitted);
      assertEquals(java.util.Set.of("control", "treatment", "null"), seen);

      // The layer: no user has a variant in two of its experiments; each of them enrols users.
      List<String> shared = new ArrayList<>();
      for (String user : users) {
        long in = LAYERED.keySet().stream()
            .filter(n -> expected.get(n).get(user).get("variant") != null).count();
        if (in > 1) shared.add(user);
      }
      assertEquals(List.of(), shared);
      for (String name : LAYERED.keySet()) {
        assertTrue(usersWhere(expected.get(name), null).size() > 200, name);
        assertTrue(usersWhere(expected.get(name), "not_in_layer").size() > 3_000, name);
      }
      assertTrue(usersWhere(expected.get("java-layered-targeted"), "not_targeted").size() > 500);

      // The holdout: the same users are held out of both its experiments, null in the client.
      List<String> heldOut = usersWhere(expected.get("java-held-open"), "held_out");
      assertEquals(heldOut, usersWhere(expected.get("java-layered-held"), "held_out"));
      assertTrue(heldOut.size() > 500 && heldOut.size() < 2_000, "held out " + heldOut.size());
      for (String name : HELD) {
        for (String user : heldOut) {
          assertEquals(null, client.assign(name, user, attributes.get(user)), name + " " + user);
        }
      }
      for (String name :
          List.of("java-targeted-parity", "java-layered-targeted", "java-layered-open")) {
        assertEquals(List.of(), usersWhere(expected.get(name), "held_out"), name);
      }

      client.flush().get();
      // One exposure per enrolled user and experiment, and one holdout exposure per user (every
      // user reaches the holdout, which comes first): nothing for users the targeting turned away.
      long sent = users.size();
      Map<String, Map<String, Integer>> want = new LinkedHashMap<>();
      for (String name : ids.keySet()) {
        Map<String, Integer> arms = new HashMap<>();
        for (String user : usersWhere(expected.get(name), null)) {
          arms.merge((String) expected.get(name).get(user).get("variant"), 1, Integer::sum);
          sent++;
        }
        want.put(ids.get(name), arms);
      }
      ArbiterStats stats = client.stats();
      assertEquals(sent, stats.sent(), stats.toString());
      assertEquals(0, stats.dropped(), stats.toString());
      // Every exposure went with metadata.attributes, and the server accepted (202) every one.
      assertEquals(0, logger.count("without its attributes"), logger.all());
      assertEquals(0, logger.count("refused"), logger.all());
      assertEquals(0, logger.count("rejected"), logger.all());
      Wait.until(() -> want.entrySet().stream()
          .allMatch(e -> liveExposures(e.getKey()).equals(e.getValue())));
      // A holdout has no live view (the live route addresses experiments only): the usage meter,
      // once per stored event, shows the server took the rest, one holdout exposure per user.
      assertEquals(usedBefore + sent, eventsUsed());

      // The tallies add up to the users that reached each targeting, as the server decided it,
      // and the real route took every one (a user counts once: held-out users were asked twice).
      Map<String, Map<String, Long>> tallied = new TreeMap<>();
      for (String[] exchange : proxy.exchanges) {
        assertEquals("200", exchange[2], exchange[3]);
        List<?> tallies = (List<?>) ((Map<?, ?>) JsonReader.parse(exchange[1])).get("tallies");
        Map<?, ?> answer = (Map<?, ?>) JsonReader.parse(exchange[3]);
        assertEquals((long) tallies.size(), answer.get("accepted"), exchange[3]);
        assertEquals(List.of(), answer.get("rejected"));
        for (Object t : tallies) {
          Map<?, ?> tally = (Map<?, ?>) t;
          Map<String, Long> sum = tallied.computeIfAbsent((String) tally.get("experiment_id"),
              k -> new TreeMap<>(Map.of("matched", 0L, "excluded", 0L)));
          sum.merge("matched", (Long) tally.get("matched"), Long::sum);
          sum.merge("excluded", (Long) tally.get("excluded"), Long::sum);
        }
      }
      Map<String, Map<String, Long>> reached = new TreeMap<>();
      for (String name : List.of("java-targeted-parity", "java-layered-targeted")) {
        long excluded = usersWhere(expected.get(name), "not_targeted").size();
        long matched = usersWhere(expected.get(name), null).size()
            + usersWhere(expected.get(name), "not_enrolled").size();
        reached.put(ids.get(name), Map.of("matched", matched, "excluded", excluded));
      }
      assertEquals(reached, tallied);
    }
  }

  /** The users whose answer has {@code reason} (null: the users given a variant). */
  private static List<String> usersWhere(Map<String, Map<?, ?>> answers, String reason) {
    List<String> out = new ArrayList<>();
    for (String user : users()) {
      Map<?, ?> a = answers.get(user);
      if (reason == null ? a.get("variant") != null : reason.equals(a.get("reason"))) out.add(user);
    }
    return out;
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
    return liveExposures(experimentId);
  }

  private static Map<String, Integer> liveExposures(String experiment) {
    try {
      Map<?, ?> live = (Map<?, ?>) server.session("GET",
          "/v1/experiments/" + experiment + "/live", null);
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
