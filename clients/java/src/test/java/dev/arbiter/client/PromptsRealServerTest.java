package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Stored prompts against the real server: with no experiment 10,000 users get the production
 * version and no exposure is sent; with a running experiment on the prompt each user gets their
 * variant's version and one exposure a day is stored; after a stop with ship every user gets the
 * shipped version from the next poll on.
 */
class PromptsRealServerTest {
  private static final int USERS = 10_000;
  private static final String PROMPT = "support-reply";
  private static RealServer server;
  private static String publishable;
  private static String secret;

  @BeforeAll
  static void start() throws Exception {
    server = RealServer.start();
    publishable = (String) ((Map<?, ?>) server.session("POST", "/v1/keys",
        Map.of("scope", "publishable"))).get("key");
    secret = (String) ((Map<?, ?>) server.session("POST", "/v1/keys",
        Map.of("scope", "secret"))).get("key");
  }

  /** Today's stored model calls of the experiment, as the export serves them. */
  private static List<Map<?, ?>> exportedModelCalls(String experiment) throws Exception {
    String day = java.time.LocalDate.now(java.time.ZoneOffset.UTC).toString();
    java.net.http.HttpResponse<String> res = java.net.http.HttpClient.newHttpClient().send(
        java.net.http.HttpRequest.newBuilder(java.net.URI.create(server.baseUrl
            + "/v1/events/export?experiment=" + experiment + "&day=" + day))
            .header("X-API-Key", secret).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    assertEquals(200, res.statusCode(), res.body());
    List<Map<?, ?>> out = new ArrayList<>();
    for (String line : res.body().split("\n")) {
      if (line.isEmpty()) continue;
      Map<?, ?> event = (Map<?, ?>) JsonReader.parse(line);
      if ("model_call".equals(event.get("type"))) out.add(event);
    }
    return out;
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) server.close();
  }

  private static String experimentOnThePrompt() throws Exception {
    Map<String, Object> config = new LinkedHashMap<>();
    config.put("name", "java-reply-test");
    config.put("salt", "salt-java-reply-test");
    config.put("bucket_count", 1_000L);
    config.put("allocation", List.of(Map.of("variant", "control", "weight", 50L),
        Map.of("variant", "treatment", "weight", 50L)));
    config.put("variants", List.of(
        Map.of("key", "control", "prompt", Map.of("name", PROMPT, "version", 1L)),
        Map.of("key", "treatment", "prompt", Map.of("name", PROMPT, "version", 2L))));
    config.put("metrics", List.of());
    return (String) ((Map<?, ?>) server.session("POST", "/v1/experiments", config)).get("id");
  }

  /** The exposures the live view has stored for the experiment, over its arms. */
  private static long storedExposures(String experiment) {
    try {
      Map<?, ?> live = (Map<?, ?>) server.session("GET",
          "/v1/experiments/" + experiment + "/live", null);
      long n = 0;
      for (Object arm : ((Map<?, ?>) live.get("arms")).values()) {
        n += (Long) ((Map<?, ?>) arm).get("exposures");
      }
      return n;
    } catch (Exception e) {
      return -1;
    }
  }

  /** Waits for a condition read over HTTP, a fifth of a second between reads. */
  private static void eventually(BooleanSupplier condition) throws InterruptedException {
    while (!condition.getAsBoolean()) Thread.sleep(200);
  }

  private static List<ResolvedPrompt> everyUser(Prompts prompts) {
    List<ResolvedPrompt> out = new ArrayList<>(USERS);
    for (int i = 0; i < USERS; i++) out.add(get(prompts, "user-" + i));
    return out;
  }

  private static ResolvedPrompt get(Prompts prompts, String user) {
    return prompts.get(PROMPT, user, "DEFAULT", null, Map.of("customer", user));
  }

  private static Set<List<Object>> sourcesAndVersions(List<ResolvedPrompt> answers) {
    Set<List<Object>> out = new HashSet<>();
    for (ResolvedPrompt p : answers) out.add(List.of(p.source(), p.version()));
    return out;
  }

  @Test
  void productionThenTheVariantsVersionThenTheShippedOne() throws Exception {
    server.session("POST", "/v1/prompts", Map.of("name", PROMPT));
    for (String text : List.of("Hello {{customer}}.", "Hi {{customer}}, briefly:")) {
      server.session("POST", "/v1/prompts/" + PROMPT + "/versions",
          Map.of("text", text, "variables", List.of("customer")));
    }
    server.session("PUT", "/v1/prompts/" + PROMPT + "/labels/production", Map.of("version", 1L));
    try (Arbiter client = Arbiter.builder().apiKey(publishable).baseUrl(server.baseUrl)
        .pollInterval(Duration.ofMillis(200)).flushInterval(Duration.ofHours(1))
        .queueCapacity(100_000).logger(new MemoryLogger()).build()) {
      assertTrue(client.ready().get());
      Prompts prompts = client.prompts();

      List<ResolvedPrompt> first = everyUser(prompts);
      assertEquals(Set.of(List.of(ResolvedPrompt.Source.LABEL, 1)), sourcesAndVersions(first));
      assertEquals("Hello user-42.", first.get(42).text());
      client.flush().get();
      assertEquals(0, client.stats().sent());

      String experiment = experimentOnThePrompt();
      Wait.until(() -> get(prompts, "user-0").source() == ResolvedPrompt.Source.EXPERIMENT);
      List<ResolvedPrompt> running = everyUser(prompts);
      assertEquals(running, everyUser(prompts));
      List<String> wrong = new ArrayList<>();
      for (int i = 0; i < USERS; i++) {
        ResolvedPrompt p = running.get(i);
        String variant = client.assign("java-reply-test", "user-" + i);
        Integer version = "treatment".equals(variant) ? 2 : 1;
        if (p.source() != ResolvedPrompt.Source.EXPERIMENT || !p.variant().equals(variant)
            || !version.equals(p.version())) {
          wrong.add("user-" + i);
        }
      }
      assertEquals(List.of(), wrong);
      client.flush().get();
      assertEquals(USERS, client.stats().sent());
      eventually(() -> storedExposures(experiment) >= USERS);
      assertEquals(USERS, storedExposures(experiment));

      // A model call made with the prompt it got: stored with the prompt's name and version.
      ResolvedPrompt mine = get(prompts, "user-7");
      String answer = client.withUser("user-7", () -> client.withPrompt(mine,
          () -> client.interceptModelCall("java-reply-test", v -> "answer of " + v)));
      assertEquals("answer of " + mine.variant(), answer);
      client.flush().get();
      List<Map<?, ?>> calls = exportedModelCalls(experiment);
      assertEquals(1, calls.size(), calls.toString());
      assertEquals(Map.of("prompt_name", PROMPT, "prompt_version", (long) mine.version()),
          calls.get(0).get("metadata"));

      server.session("POST", "/v1/experiments/" + experiment + "/stop",
          Map.of("conclusion", "ship", "variant", "treatment"));
      Wait.until(() -> get(prompts, "user-0").source() == ResolvedPrompt.Source.LABEL);
      List<ResolvedPrompt> shipped = everyUser(prompts);
      assertEquals(Set.of(List.of(ResolvedPrompt.Source.LABEL, 2)), sourcesAndVersions(shipped));
      assertEquals("Hi user-3, briefly:", shipped.get(3).text());
      client.flush().get();
      // The users' exposures, then the model call's exposure and the model call.
      assertEquals(USERS + 2, client.stats().sent());
    }
  }
}
