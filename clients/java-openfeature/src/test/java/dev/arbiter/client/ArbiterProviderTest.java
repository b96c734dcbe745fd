package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.openfeature.ArbiterProvider;
import dev.openfeature.sdk.Client;
import dev.openfeature.sdk.ErrorCode;
import dev.openfeature.sdk.FlagEvaluationDetails;
import dev.openfeature.sdk.ImmutableContext;
import dev.openfeature.sdk.MutableTrackingEventDetails;
import dev.openfeature.sdk.OpenFeatureAPI;
import dev.openfeature.sdk.ProviderEvent;
import dev.openfeature.sdk.Reason;
import dev.openfeature.sdk.Value;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The provider through the real OpenFeature SDK ({@code dev.openfeature:sdk}) against the real
 * server: 10,000 users resolve to the client's {@code assign}; every resolution type;
 * {@code track} stored as a business event; CONFIGURATION_CHANGED after a PUT; STALE when the
 * server is gone; every error code in its case. (In this package for the client's test server.)
 */
class ArbiterProviderTest {
  private static RealServer server;
  private static String experimentId;
  private static String publishable;
  private static String secret;
  private final OpenFeatureAPI api = OpenFeatureAPI.getInstance();
  private final List<Arbiter> clients = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    server = RealServer.start();
    experimentId = create("copy", List.of(
        variant("control", Map.of("tone", "plain", "max_tokens", 200L, "ratio", 0.5, "bold", false)),
        variant("concise", Map.of("tone", "short", "max_tokens", 80L, "ratio", 0.25, "bold", true)),
        variant("formal", Map.of("tone", "formal", "max_tokens", 300L, "ratio", 1.5, "bold", false,
            "style", Map.of("a", 1L)))));
    publishable = key("publishable");
    secret = key("secret");
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) server.close();
  }

  @AfterEach
  void shutdown() {
    api.shutdown();
    for (Arbiter c : clients) c.close();
  }

  private static String key(String scope) throws Exception {
    return (String) ((Map<?, ?>) server.session("POST", "/v1/keys", Map.of("scope", scope))).get("key");
  }

  private static Map<String, Object> variant(String key, Map<String, Object> variables) {
    return Map.of("key", key, "variables", variables);
  }

  private static Map<String, Object> config(String name, List<Map<String, Object>> variants) {
    List<Map<String, Object>> allocation = new ArrayList<>();
    for (Map<String, Object> v : variants) allocation.add(Map.of("variant", v.get("key"), "weight", 30L));
    return Map.of("name", name, "salt", name + "-salt", "bucket_count", 10_000L,
        "allocation", allocation, "variants", variants, "metrics", List.of());
  }

  private static String create(String name, List<Map<String, Object>> variants) throws Exception {
    return (String) ((Map<?, ?>) server.session("POST", "/v1/experiments", config(name, variants))).get("id");
  }

  private Arbiter client(boolean exposures) {
    Arbiter c = Arbiter.builder().apiKey(publishable).baseUrl(server.baseUrl).pollInterval(java.time.Duration.ofMillis(200))
        .flushInterval(java.time.Duration.ofHours(1)).maxAttempts(1).trackExposures(exposures)
        .logger(new MemoryLogger()).build();
    clients.add(c);
    return c;
  }

  @Test
  void tenThousandUsersResolveToTheClientsAssignWithEveryType() throws Exception {
    Arbiter reference = client(false);
    api.setProviderAndWait("parity", new ArbiterProvider(client(false), false, 60_000));
    reference.ready().get();
    Client flags = api.getClient("parity");
    List<String> mismatches = new ArrayList<>();
    String formal = null;
    String excluded = null;
    for (int i = 0; i < 10_000; i++) {
      String user = "of-user-" + i;
      String want = reference.assign("copy", user);
      FlagEvaluationDetails<String> d = flags.getStringDetails("copy", "none", new ImmutableContext(user));
      String got = Reason.SPLIT.toString().equals(d.getReason()) ? d.getValue() : null;
      if (!java.util.Objects.equals(got, want) || !java.util.Objects.equals(d.getVariant(), want)) {
        mismatches.add(user);
      }
      if ("formal".equals(want) && formal == null) formal = user;
      if (want == null && excluded == null) excluded = user;
    }
    assertEquals(List.of(), mismatches);

    ImmutableContext ctx = new ImmutableContext(formal, Map.of("plan", new Value("pro")));
    FlagEvaluationDetails<Value> object = flags.getObjectDetails("copy", new Value(), ctx);
    assertEquals("formal", object.getValue().asStructure().getValue("tone").asString());
    assertEquals("formal", object.getVariant());
    assertEquals(experimentId, object.getFlagMetadata().getString("experimentId"));
    assertTrue(object.getFlagMetadata().getLong("configVersion") > 0);
    assertEquals(300, flags.getIntegerValue("copy:max_tokens", 1, ctx));
    assertEquals(1.5, flags.getDoubleValue("copy:ratio", 0.0, ctx));
    assertEquals(false, flags.getBooleanValue("copy:bold", true, ctx));
    assertEquals("formal", flags.getStringValue(experimentId + ":tone", "x", ctx));
    assertEquals(1, flags.getObjectValue("copy:style", new Value(), ctx).asStructure()
        .getValue("a").asInteger());
    FlagEvaluationDetails<Integer> absent = flags.getIntegerDetails("copy:missing", 7, ctx);
    assertEquals(List.of(7, "formal", "DEFAULT"),
        List.of(absent.getValue(), absent.getVariant(), absent.getReason()));
    assertNull(absent.getErrorCode());
    FlagEvaluationDetails<String> out = flags.getStringDetails("copy", "none", new ImmutableContext(excluded));
    assertEquals(List.of("none", "DEFAULT"), List.of(out.getValue(), out.getReason()));
    assertNull(out.getVariant());

    assertEquals(ErrorCode.FLAG_NOT_FOUND, flags.getStringDetails("nope", "d", ctx).getErrorCode());
    assertEquals(ErrorCode.TARGETING_KEY_MISSING,
        flags.getStringDetails("copy", "d", new ImmutableContext()).getErrorCode());
    assertEquals(ErrorCode.TYPE_MISMATCH, flags.getBooleanDetails("copy", false, ctx).getErrorCode());
    assertEquals(ErrorCode.TYPE_MISMATCH, flags.getIntegerDetails("copy", 0, ctx).getErrorCode());
    FlagEvaluationDetails<Boolean> typed = flags.getBooleanDetails("copy:tone", false, ctx);
    assertEquals(List.of(false, ErrorCode.TYPE_MISMATCH), List.of(typed.getValue(), typed.getErrorCode()));
  }

  @Test
  void providerNotReadyWhenTheServerCannotBeReached() throws Exception {
    Arbiter unreachable = Arbiter.builder().apiKey("svc_pk_unreachable").baseUrl("http://127.0.0.1:9")
        .maxAttempts(1).logger(new MemoryLogger()).build();
    clients.add(unreachable);
    ArbiterProvider provider = new ArbiterProvider(unreachable, false, 30_000);
    assertEquals(ErrorCode.PROVIDER_NOT_READY,
        provider.getStringEvaluation("copy", "d", new ImmutableContext("u")).getErrorCode());
    List<String> errors = new CopyOnWriteArrayList<>();
    api.onProviderError(e -> errors.add(e.getDomain() == null ? "" : e.getDomain()));
    api.setProvider("down", provider);
    Wait.until(() -> !errors.isEmpty());
    FlagEvaluationDetails<String> d = api.getClient("down").getStringDetails("copy", "d",
        new ImmutableContext("u"));
    assertEquals(List.of("d", "ERROR"), List.of(d.getValue(), d.getReason()));
  }

  @Test
  void trackIsABusinessEventAndShutdownFlushesItWithOneExposure() throws Exception {
    String id = create("tracked", List.of(variant("control", Map.of()), variant("treatment", Map.of())));
    api.setProviderAndWait("tracked", new ArbiterProvider(client(true)));
    Client flags = api.getClient("tracked");
    String user = null;
    for (int i = 0; user == null; i++) {
      FlagEvaluationDetails<String> d = flags.getStringDetails("tracked", "none", new ImmutableContext("t-" + i));
      if ("SPLIT".equals(d.getReason())) user = "t-" + i;
    }
    flags.getStringValue("tracked", "none", new ImmutableContext(user));
    flags.getObjectValue(id, new Value(), new ImmutableContext(user));
    flags.track("checkout", new ImmutableContext(user),
        new MutableTrackingEventDetails(42.5).add("experiment", "tracked").add("plan", "pro"));
    // Nothing sent yet (the flush interval is an hour): the SDK's shutdown flushes.
    api.shutdown();
    List<Map<?, ?>> events = storedEvents("tracked");
    final String who = user;
    long exposures = events.stream().filter(e -> "exposure".equals(e.get("type")) && who.equals(e.get("user_id"))).count();
    assertEquals(1, exposures);
    List<Map<?, ?>> business = new ArrayList<>();
    for (Map<?, ?> e : events) if ("business_event".equals(e.get("type"))) business.add(e);
    assertEquals(1, business.size());
    Map<?, ?> event = business.get(0);
    assertEquals(List.of(user, "checkout", 42.5, id, Map.of("plan", "pro")),
        List.of(event.get("user_id"), event.get("business_metric"), event.get("value"),
            event.get("experiment_id"), event.get("metadata")));
  }

  private static List<Map<?, ?>> storedEvents(String experiment) throws Exception {
    String day = LocalDate.now(ZoneOffset.UTC).toString();
    HttpResponse<String> res = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
        server.baseUrl + "/v1/events/export?experiment=" + experiment + "&day=" + day))
        .header("X-API-Key", secret).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, res.statusCode());
    List<Map<?, ?>> out = new ArrayList<>();
    for (String line : res.body().split("\n")) if (!line.isEmpty()) out.add((Map<?, ?>) JsonReader.parse(line));
    return out;
  }

  @Test
  void lifecycleReasonsAndConfigurationChangedAfterAPut() throws Exception {
    String shipped = create("shipped", List.of(variant("control", Map.of("t", 0.7)),
        variant("treatment", Map.of("t", 0.2))));
    server.session("POST", "/v1/experiments/" + shipped + "/stop",
        Map.of("conclusion", "ship", "variant", "treatment"));
    Map<String, Object> draft = new java.util.HashMap<>(config("not-yet",
        List.of(variant("control", Map.of()), variant("treatment", Map.of()))));
    draft.put("status", "draft");
    server.session("POST", "/v1/experiments", draft);
    String moving = create("moving", List.of(variant("control", Map.of()), variant("treatment", Map.of())));
    api.setProviderAndWait("lifecycle", new ArbiterProvider(client(true)));
    Client flags = api.getClient("lifecycle");
    List<ProviderEvent> seen = new CopyOnWriteArrayList<>();
    flags.onProviderConfigurationChanged(e -> seen.add(ProviderEvent.PROVIDER_CONFIGURATION_CHANGED));
    ImmutableContext ctx = new ImmutableContext("anyone");
    FlagEvaluationDetails<String> stat = flags.getStringDetails("shipped", "none", ctx);
    assertEquals(List.of("treatment", "treatment", "STATIC"),
        List.of(stat.getValue(), stat.getVariant(), stat.getReason()));
    assertEquals(0.2, flags.getDoubleValue("shipped:t", 0.0, ctx));
    FlagEvaluationDetails<String> disabled = flags.getStringDetails("not-yet", "none", ctx);
    assertEquals(List.of("none", "DISABLED"), List.of(disabled.getValue(), disabled.getReason()));
    long before = flags.getStringDetails("moving", "none", ctx).getFlagMetadata().getLong("configVersion");
    Map<String, Object> put = new java.util.HashMap<>(config("moving",
        List.of(variant("control", Map.of()), variant("treatment", Map.of()))));
    put.put("allocation", List.of(Map.of("variant", "control", "weight", 20L),
        Map.of("variant", "treatment", "weight", 20L)));
    server.session("PUT", "/v1/experiments/" + moving, put);
    Wait.until(() -> seen.contains(ProviderEvent.PROVIDER_CONFIGURATION_CHANGED));
    FlagEvaluationDetails<String> after = flags.getStringDetails("moving", "none", ctx);
    assertNotEquals(before, after.getFlagMetadata().getLong("configVersion"));

    // Archived: absent from the config, so not found, as OFREP answers it.
    seen.clear();
    server.session("POST", "/v1/experiments/" + shipped + "/archive", null);
    Wait.until(() -> seen.contains(ProviderEvent.PROVIDER_CONFIGURATION_CHANGED));
    FlagEvaluationDetails<String> archived = flags.getStringDetails("shipped", "none", ctx);
    assertEquals(List.of("none", "ERROR", ErrorCode.FLAG_NOT_FOUND),
        List.of(archived.getValue(), archived.getReason(), archived.getErrorCode()));
  }

  @Test
  void staleWhenTheServerGoesAwayAfterReadyAndTheCachedValuesKeepServing() throws Exception {
    // Closed by the test itself (the server going away): no try-with-resources.
    LossyProxy proxy = new LossyProxy(server.baseUrl);
    Arbiter c = Arbiter.builder().apiKey(publishable).baseUrl(proxy.baseUrl())
        .pollInterval(java.time.Duration.ofMillis(200)).flushInterval(java.time.Duration.ofHours(1))
        .maxAttempts(1).trackExposures(false).logger(new MemoryLogger()).build();
    clients.add(c);
    api.setProviderAndWait("stale", new ArbiterProvider(c, false, 60_000));
    Client flags = api.getClient("stale");
    List<ProviderEvent> seen = new CopyOnWriteArrayList<>();
    flags.onProviderStale(e -> seen.add(ProviderEvent.PROVIDER_STALE));
    flags.onProviderError(e -> seen.add(ProviderEvent.PROVIDER_ERROR));
    List<FlagEvaluationDetails<String>> before = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      before.add(flags.getStringDetails("copy", "none", new ImmutableContext("stale-" + i)));
    }
    assertEquals(dev.openfeature.sdk.ProviderState.READY, flags.getProviderState());

    proxy.close();
    Wait.until(() -> !seen.isEmpty());
    assertEquals(List.of(ProviderEvent.PROVIDER_STALE), seen);
    assertEquals(dev.openfeature.sdk.ProviderState.STALE, flags.getProviderState());
    for (int i = 0; i < 100; i++) {
      FlagEvaluationDetails<String> d = flags.getStringDetails("copy", "none",
          new ImmutableContext("stale-" + i));
      assertEquals(List.of(before.get(i).getValue(), before.get(i).getReason()),
          List.of(d.getValue(), d.getReason()), "stale-" + i);
      assertNull(d.getErrorCode());
    }
    assertTrue(before.stream().anyMatch(d -> "SPLIT".equals(d.getReason())));
  }
}
