package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ClientApiTest {
  private FakeArbiter fake;
  private MemoryLogger logger;
  private final List<Arbiter> clients = new ArrayList<>();

  @BeforeEach
  void start() throws IOException {
    fake = new FakeArbiter(Configs.doc(1, List.of(Configs.twoArms())));
    logger = new MemoryLogger();
  }

  @AfterEach
  void stop() {
    clients.forEach(Arbiter::close);
    fake.close();
  }

  private Arbiter.Builder builder() {
    return Arbiter.builder().apiKey(fake.apiKey).baseUrl(fake.baseUrl()).logger(logger)
        .pollInterval(Duration.ofMillis(3_600_000)).flushInterval(Duration.ofMillis(3_600_000)).sendFullBatches(false);
  }

  private Arbiter ready(Arbiter.Builder b) throws Exception {
    Arbiter c = b.build();
    clients.add(c);
    assertTrue(c.ready().get());
    return c;
  }

  private Collection<Map<String, Object>> stored(String type) {
    return fake.events.values().stream().filter(e -> type.equals(e.get("type")))
        .collect(Collectors.toList());
  }

  @Test
  void buildWithoutAKeyThrowsAClearException() {
    ArbiterException e = assertThrows(ArbiterException.class,
        () -> Arbiter.builder().environment(name -> null).build());
    assertTrue(e.getMessage().contains("ARBITER_API_KEY"));
    assertThrows(ArbiterException.class,
        () -> Arbiter.builder().apiKey("k").baseUrl("ftp://x").build());
  }

  @Test
  void keyAndAddressComeFromTheEnvironment() throws Exception {
    Map<String, String> env = Map.of("ARBITER_API_KEY", fake.apiKey,
        "ARBITER_BASE_URL", fake.baseUrl());
    Arbiter c = ready(Arbiter.builder().environment(env::get).logger(logger));
    assertNotNull(c.assign(Configs.EXPERIMENT, "u-1"));
    // The builder wins over the environment.
    Arbiter wrongKey = Arbiter.builder().environment(env::get).apiKey("svc_pk_other")
        .maxAttempts(1).logger(logger).build();
    clients.add(wrongKey);
    assertFalse(wrongKey.ready().get());
    assertTrue(logger.all().contains("HTTP 401: Unknown API key") || logger.all().contains("HTTP 401"));
  }

  @Test
  void assignsByNameAndIdAlikeAndNullBeforeTheConfigAndForUnknownExperiments() throws Exception {
    Arbiter c = ready(builder().trackExposures(false).experiments(Configs.EXPERIMENT_ID));
    int control = 0;
    int treatment = 0;
    int none = 0;
    Bucketer bucketer = new Bucketer("s-8f2a", 1000);
    for (int i = 0; i < 2_000; i++) {
      String user = "user-" + i;
      String byName = c.assign(Configs.EXPERIMENT, user);
      assertEquals(byName, c.assign(Configs.EXPERIMENT_ID, user));
      long bucket = bucketer.bucketOf(user);
      assertEquals(bucket < 400 ? "control" : bucket < 800 ? "treatment" : null, byName);
      if (byName == null) none++;
      else if (byName.equals("control")) control++;
      else treatment++;
    }
    assertTrue(control > 700 && treatment > 700 && none > 300, control + "/" + treatment + "/" + none);
    assertNull(c.assign("no-such-experiment", "user-1"));
  }

  @Test
  void readyIsFalseWhenAPrefetchedExperimentIsMissing() throws Exception {
    Arbiter c = builder().experiments(Configs.EXPERIMENT, "no-such").build();
    clients.add(c);
    assertFalse(c.ready().get());
    assertEquals(1, logger.count("not in the config: no-such"));
    assertNotNull(c.assign(Configs.EXPERIMENT, "user-1"));
  }

  @Test
  void getPromptAndGetVariables() throws Exception {
    fake.setConfig(Configs.doc(1, List.of(Configs.threeArms())));
    Arbiter c = ready(builder().trackExposures(false));
    Map<String, Object> defaults = new HashMap<>(Map.of("temperature", 1.0, "max_tokens", 256L));
    boolean[] sawEach = new boolean[3];
    for (int i = 0; i < 300; i++) {
      String user = "user-" + i;
      String variant = c.assign(Configs.EXPERIMENT, user);
      PromptResult p = c.getPrompt(Configs.EXPERIMENT, user, "DEFAULT");
      Map<String, Object> vars = c.getVariables(Configs.EXPERIMENT_ID, user, defaults);
      assertEquals(variant, p.variant());
      if ("third".equals(variant)) {
        // A variant without a prompt falls back to the caller's default.
        assertEquals(new PromptResult("third", "DEFAULT", true), p);
        sawEach[2] = true;
      } else {
        assertEquals(new PromptResult(variant, "prompt of " + variant, false), p);
        sawEach["control".equals(variant) ? 0 : 1] = true;
      }
      assertEquals("control".equals(variant) ? 0.7 : 0.2, vars.get("temperature"));
      assertEquals(256L, vars.get("max_tokens"));
    }
    assertTrue(sawEach[0] && sawEach[1] && sawEach[2]);
    assertEquals(Map.of("temperature", 1.0, "max_tokens", 256L), defaults);
    assertEquals(new PromptResult(null, "DEFAULT", true), c.getPrompt("nope", "u", "DEFAULT"));
  }

  @Test
  void sendsOneExposurePerUserAndExperimentWithItsVariant() throws Exception {
    Arbiter c = ready(builder());
    List<String> enrolled = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      String user = "user-" + i;
      for (int k = 0; k < 3; k++) {
        if (c.assign(Configs.EXPERIMENT, user) != null && k == 0) enrolled.add(user);
        c.getPrompt(Configs.EXPERIMENT_ID, user, "d");
      }
    }
    c.flush().join();
    Collection<Map<String, Object>> exposures = stored("exposure");
    assertEquals(enrolled.size(), exposures.size());
    for (Map<String, Object> e : exposures) {
      assertEquals(Configs.EXPERIMENT_ID, e.get("experiment_id"));
      assertEquals(c.assign(Configs.EXPERIMENT, (String) e.get("user_id")), e.get("variant"));
    }
    // Ids over 256 characters still bucket, but send nothing.
    String longId = "x".repeat(300);
    c.assign(Configs.EXPERIMENT, longId);
    c.assign(Configs.EXPERIMENT, "bad\u0000id");
    c.flush().join();
    assertEquals(enrolled.size(), stored("exposure").size());
  }

  @Test
  void trackRefusesWhatTheServerWouldRefuseWithOneLineEach() throws Exception {
    Arbiter c = ready(builder().trackExposures(false));
    Map<String, Object> good = new HashMap<>(Map.of("experiment_id", Configs.EXPERIMENT,
        "user_id", "u-1", "business_metric", "revenue", "value", 19.99,
        "metadata", Map.of("order", "A-17", "items", 3)));
    c.track(EventType.BUSINESS_EVENT, good);
    String[][] bad = {
        {"user_id", "x".repeat(257)},
        {"user_id", "nul\u0000"},
        {"business_metric", "lone\ud800"},
        {"unknown_field", "x"},
        {"value", "not a number"},
    };
    for (String[] b : bad) {
      Map<String, Object> p = new HashMap<>(good);
      p.put(b[0], b[1]);
      c.track(EventType.BUSINESS_EVENT, p);
    }
    Map<String, Object> wrongType = new HashMap<>(good);
    wrongType.put("latency_ms", 12);
    c.track(EventType.BUSINESS_EVENT, wrongType);
    Map<String, Object> noSuchVariant = new HashMap<>(good);
    noSuchVariant.put("variant", "nope");
    c.track(EventType.BUSINESS_EVENT, noSuchVariant);
    Map<String, Object> badMeta = new HashMap<>(good);
    badMeta.put("metadata", Map.of("note", "\udc00"));
    c.track(EventType.BUSINESS_EVENT, badMeta);
    Map<String, Object> negative = new HashMap<>(good);
    negative.remove("business_metric");
    negative.remove("value");
    negative.put("latency_ms", -1);
    c.track(EventType.MODEL_CALL, negative);
    Map<String, Object> fractionalTokens = new HashMap<>(negative);
    fractionalTokens.put("latency_ms", 3);
    fractionalTokens.put("input_tokens", 1.5);
    c.track(EventType.MODEL_CALL, fractionalTokens);
    assertEquals(10, logger.count("event dropped"));
    c.flush().join();
    assertEquals(1, fake.events.size());
    Map<String, Object> e = fake.events.values().iterator().next();
    // Sent with the canonical id, the client's event_id and an ISO 8601 millisecond timestamp.
    assertEquals(Configs.EXPERIMENT_ID, e.get("experiment_id"));
    assertEquals(19.99, e.get("value"));
    assertEquals(Map.of("order", "A-17", "items", 3L), e.get("metadata"));
    assertTrue(((String) e.get("timestamp")).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z"));
    assertTrue(((String) e.get("event_id")).matches("[0-9a-f-]{36}"));
  }

  /** An OpenAI-Java-like response: model() and usage() returning Optional, as openai-java does. */
  public static final class FakeCompletion {
    public String model() {
      return "gpt-4o-mini";
    }

    public Optional<FakeUsage> usage() {
      return Optional.of(new FakeUsage());
    }
  }

  public static final class FakeUsage {
    public long promptTokens() {
      return 120;
    }

    public long completionTokens() {
      return 40;
    }
  }

  /** An Anthropic-like bean with getters. */
  public static final class BeanMessage {
    public String getModel() {
      return "claude-x";
    }

    public Map<String, Object> getUsage() {
      return Map.of("input_tokens", 7L, "output_tokens", 9L);
    }

    public String getResponse() {
      return "the answer";
    }
  }

  @Test
  void interceptModelCallRecordsExposureAndModelCall() throws Exception {
    Arbiter c = ready(builder().trackExposures(false));
    String user = enrolledUser(c);
    String variant = c.assign(Configs.EXPERIMENT, user);
    String[] seen = new String[1];
    FakeCompletion result = c.interceptModelCall(Configs.EXPERIMENT, user, v -> {
      seen[0] = v;
      return new FakeCompletion();
    });
    assertNotNull(result);
    assertEquals(variant, seen[0]);
    BeanMessage bean = c.interceptModelCall(Configs.EXPERIMENT_ID, user, v -> new BeanMessage());
    assertNotNull(bean);
    RuntimeException boom = new IllegalStateException("provider down");
    RuntimeException thrown = assertThrows(IllegalStateException.class,
        () -> c.interceptModelCall(Configs.EXPERIMENT, user, v -> {
          throw boom;
        }));
    assertSame(boom, thrown);
    CompletableFuture<FakeCompletion> later = new CompletableFuture<>();
    CompletableFuture<FakeCompletion> async =
        c.interceptModelCall(Configs.EXPERIMENT, user, v -> later);
    assertSame(later, async);
    later.complete(new FakeCompletion());
    c.flush().join();

    assertEquals(4, stored("exposure").size());
    for (Map<String, Object> e : stored("exposure")) assertEquals(variant, e.get("variant"));
    List<Map<String, Object>> calls = new ArrayList<>(stored("model_call"));
    assertEquals(4, calls.size());
    List<Map<String, Object>> openai = calls.stream()
        .filter(e -> "gpt-4o-mini".equals(e.get("model"))).collect(Collectors.toList());
    assertEquals(2, openai.size());
    for (Map<String, Object> e : openai) {
      assertEquals(120L, e.get("input_tokens"));
      assertEquals(40L, e.get("output_tokens"));
      assertNull(e.get("error"));
      assertTrue(((Number) e.get("latency_ms")).doubleValue() >= 0);
    }
    Map<String, Object> beanCall = calls.stream()
        .filter(e -> "claude-x".equals(e.get("model"))).findFirst().orElseThrow();
    assertEquals(7L, beanCall.get("input_tokens"));
    assertEquals(9L, beanCall.get("output_tokens"));
    assertEquals("the answer", beanCall.get("response"));
    Map<String, Object> failed = calls.stream()
        .filter(e -> e.get("error") != null).findFirst().orElseThrow();
    assertEquals("IllegalStateException: provider down", failed.get("error"));
    for (Map<String, Object> e : calls) {
      assertEquals(Configs.EXPERIMENT_ID, e.get("experiment_id"));
      assertEquals(user, e.get("user_id"));
    }
  }

  @Test
  void interceptModelCallLeavesUsersOutsideTheExperimentUnrecorded() throws Exception {
    Arbiter c = ready(builder().trackExposures(false).recordModelText(false));
    String outside = null;
    for (int i = 0; outside == null; i++) {
      if (c.assign(Configs.EXPERIMENT, "user-" + i) == null) outside = "user-" + i;
    }
    String[] seen = {"unset"};
    String answer = c.interceptModelCall(Configs.EXPERIMENT, outside, v -> {
      seen[0] = v;
      return "ok";
    });
    assertEquals("ok", answer);
    assertNull(seen[0]);
    assertEquals("ok", c.interceptModelCall("no-such", "user-1", v -> "ok"));
    c.interceptModelCall(Configs.EXPERIMENT, enrolledUser(c), v -> new BeanMessage());
    c.flush().join();
    assertEquals(1, stored("model_call").size());
    // recordModelText(false): measurements only.
    assertFalse(stored("model_call").iterator().next().containsKey("response"));
  }

  @Test
  void aNewerConfigVersionInAnAckRefreshesTheConfig() throws Exception {
    Arbiter c = ready(builder().trackExposures(false));
    String newcomer = null;
    for (int i = 0; newcomer == null; i++) {
      if (c.assign(Configs.EXPERIMENT, "user-" + i) == null) newcomer = "user-" + i;
    }
    fake.setConfig(Configs.doc(2, List.of(Configs.threeArms())));
    assertNull(c.assign(Configs.EXPERIMENT, newcomer));
    int configGets = fake.configRequests.size();
    c.trackBusinessEvent(Configs.EXPERIMENT, newcomer, "checkout", 0);
    c.flush().join();
    String user = newcomer;
    Wait.until(() -> "third".equals(c.assign(Configs.EXPERIMENT, user)));
    assertEquals(configGets + 1, fake.configRequests.size());
    assertEquals("\"1\"", fake.configRequests.get(configGets)[0]);
  }

  @Test
  void aConfigWithAnUnknownBucketingVersionIsNotUsed() throws Exception {
    Map<String, Object> doc = Configs.doc(1, List.of(Configs.twoArms()));
    doc.put("bucketing_version", "2");
    fake.setConfig(doc);
    Arbiter c = builder().build();
    clients.add(c);
    assertFalse(c.ready().get());
    assertNull(c.assign(Configs.EXPERIMENT, "user-1"));
    assertEquals(1, logger.count("bucketing version 2"));
  }

  @Test
  void aThrowingLoggerNeverReachesTheCaller() throws Exception {
    Arbiter c = ready(Arbiter.builder().apiKey(fake.apiKey).baseUrl(fake.baseUrl())
        .logger(new ArbiterLogger() {
          @Override
          public void warn(String message) {
            throw new IllegalStateException("logger down");
          }

          @Override
          public void error(String message) {
            throw new IllegalStateException("logger down");
          }
        }));
    c.track((EventType) null, Map.of());
    assertNotNull(c.assign(Configs.EXPERIMENT, enrolledUser(c)));
  }

  private static String enrolledUser(Arbiter c) {
    for (int i = 0; ; i++) {
      if (c.assign(Configs.EXPERIMENT, "user-" + i) != null) return "user-" + i;
    }
  }
}
