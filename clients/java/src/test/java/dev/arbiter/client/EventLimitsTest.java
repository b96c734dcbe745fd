package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.math.BigInteger;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The server's per-event limits (docs/wire-format.md), enforced before an event is queued: the
 * text rule, the fields' lengths, the numeric domains and the free-form JSON limit of
 * {@code metadata}. Each refused event costs one log line and nothing else; the values on the
 * limits are accepted.
 */
class EventLimitsTest {
  /** A padding string that makes {@code {"p":"..."}} exactly 64 KiB as JSON. */
  private static final int PAD = ArbiterDefaults.METADATA_MAX_BYTES - "{\"p\":\"\"}".length();

  private FakeArbiter fake;
  private MemoryLogger logger;
  private Arbiter client;

  @BeforeEach
  void start() throws Exception {
    fake = new FakeArbiter(Configs.doc(1, List.of(Configs.twoArms())));
    logger = new MemoryLogger();
    client = Arbiter.builder().apiKey(fake.apiKey).baseUrl(fake.baseUrl()).logger(logger)
        .pollInterval(Duration.ofMillis(3_600_000)).flushInterval(Duration.ofMillis(3_600_000)).sendFullBatches(false)
        .trackExposures(false).build();
    client.ready().get();
  }

  @AfterEach
  void stop() throws IOException {
    client.close();
    fake.close();
  }

  /** An object {@code levels} deep: {@code {"a": {"a": ... {"leaf": 1}}}}. */
  static Map<String, Object> nested(int levels) {
    Map<String, Object> node = Map.of("leaf", 1);
    for (int i = 1; i < levels; i++) node = Map.of("a", node);
    return node;
  }

  static Map<String, Object> outcome(Object... fields) {
    Map<String, Object> p = new HashMap<>(Map.of("experiment_id", Configs.EXPERIMENT,
        "user_id", "user-1", "business_metric", "revenue", "value", 1));
    for (int i = 0; i < fields.length; i += 2) p.put((String) fields[i], fields[i + 1]);
    return p;
  }

  static Map<String, Object> modelCall(Object... fields) {
    Map<String, Object> p = new HashMap<>(Map.of("experiment_id", Configs.EXPERIMENT,
        "user_id", "user-1"));
    for (int i = 0; i < fields.length; i += 2) p.put((String) fields[i], fields[i + 1]);
    return p;
  }

  static Stream<Arguments> refused() {
    Map<String, Object> nullLatency = modelCall();
    nullLatency.put("latency_ms", null);
    Map<String, Object> nullMetadata = outcome();
    nullMetadata.put("metadata", null);
    return Stream.of(
        Arguments.of("value over 1e12", EventType.BUSINESS_EVENT, outcome("value", 1e155)),
        Arguments.of("value under -1e12", EventType.BUSINESS_EVENT, outcome("value", -1_000_000_000_001L)),
        Arguments.of("value a huge BigInteger", EventType.BUSINESS_EVENT,
            outcome("value", BigInteger.TEN.pow(400))),
        Arguments.of("NUL in user_id", EventType.BUSINESS_EVENT, outcome("user_id", "a\u0000b")),
        Arguments.of("unpaired surrogate in user_id", EventType.BUSINESS_EVENT,
            outcome("user_id", "a\ud800b")),
        Arguments.of("unpaired surrogate in business_metric", EventType.BUSINESS_EVENT,
            outcome("business_metric", "rev\ud800")),
        Arguments.of("NUL in experiment_id", EventType.BUSINESS_EVENT,
            outcome("experiment_id", "checkout\u0000")),
        Arguments.of("business_metric over 128", EventType.BUSINESS_EVENT,
            outcome("business_metric", "m".repeat(129))),
        Arguments.of("empty variant", EventType.BUSINESS_EVENT, outcome("variant", "")),
        Arguments.of("variant over 64", EventType.BUSINESS_EVENT, outcome("variant", "v".repeat(65))),
        Arguments.of("NUL in a metadata string", EventType.BUSINESS_EVENT,
            outcome("metadata", Map.of("note", "x\u0000"))),
        Arguments.of("surrogate in a metadata key", EventType.BUSINESS_EVENT,
            outcome("metadata", Map.of("k\udc00", 1))),
        Arguments.of("NUL inside a metadata list", EventType.BUSINESS_EVENT,
            outcome("metadata", Map.of("l", List.of(1, List.of("\u0000"))))),
        Arguments.of("metadata 33 levels deep", EventType.BUSINESS_EVENT,
            outcome("metadata", nested(33))),
        Arguments.of("metadata 5,000 levels deep", EventType.BUSINESS_EVENT,
            outcome("metadata", nested(5_000))),
        Arguments.of("metadata one byte over 64 KiB", EventType.BUSINESS_EVENT,
            outcome("metadata", Map.of("p", "x".repeat(PAD + 1)))),
        Arguments.of("metadata a list", EventType.BUSINESS_EVENT, outcome("metadata", List.of(1))),
        Arguments.of("metadata null", EventType.BUSINESS_EVENT, nullMetadata),
        Arguments.of("metadata holding NaN", EventType.BUSINESS_EVENT,
            outcome("metadata", Map.of("n", Double.NaN))),
        Arguments.of("latency_ms over a day", EventType.MODEL_CALL,
            modelCall("latency_ms", ArbiterDefaults.MAX_LATENCY_MS + 1)),
        Arguments.of("latency_ms negative", EventType.MODEL_CALL, modelCall("latency_ms", -0.5)),
        Arguments.of("latency_ms null", EventType.MODEL_CALL, nullLatency),
        Arguments.of("input_tokens fractional", EventType.MODEL_CALL, modelCall("input_tokens", 1.5)),
        Arguments.of("output_tokens over a billion", EventType.MODEL_CALL,
            modelCall("output_tokens", ArbiterDefaults.MAX_TOKENS + 1)),
        Arguments.of("cost_usd over a million", EventType.MODEL_CALL,
            modelCall("cost_usd", 1_000_000.01)),
        Arguments.of("cost_usd infinite", EventType.MODEL_CALL,
            modelCall("cost_usd", Double.POSITIVE_INFINITY)),
        Arguments.of("model over 200", EventType.MODEL_CALL, modelCall("model", "m".repeat(201))),
        Arguments.of("NUL in error", EventType.MODEL_CALL, modelCall("error", "bad\u0000byte")),
        Arguments.of("error over 4,000", EventType.MODEL_CALL, modelCall("error", "e".repeat(4_001))),
        Arguments.of("unpaired surrogate in prompt", EventType.MODEL_CALL, modelCall("prompt", "\udfff")),
        Arguments.of("response over 200,000 UTF-16 units", EventType.MODEL_CALL,
            modelCall("response", "\ud83d\ude00".repeat(100_001))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refused")
  void anEventTheApiWouldRefuseIsDroppedWithOneLogLine(String name, EventType type,
      Map<String, Object> payload) {
    assertDoesNotThrow(() -> client.track(type, payload));
    assertEquals(0, client.stats().queued(), name);
    assertEquals(1, logger.lines.size(), logger.all());
    assertEquals(1, logger.count("event dropped"), logger.all());
  }

  @Test
  void valuesOnTheLimitsAreQueuedAndSent() {
    long limit = ArbiterDefaults.MAX_ABS_BUSINESS_VALUE;
    client.track(EventType.BUSINESS_EVENT, outcome("user_id", "low", "value", -limit,
        "metadata", nested(ArbiterDefaults.METADATA_MAX_DEPTH)));
    client.track(EventType.BUSINESS_EVENT, outcome("user_id", "high", "value", (double) limit,
        "business_metric", "m".repeat(128), "metadata", Map.of("p", "x".repeat(PAD))));
    Map<String, Object> deep = new LinkedHashMap<>();
    deep.put("emoji", "ok \ud83d\ude00");
    deep.put("deep", List.of(List.of(List.of("fine"))));
    client.track(EventType.BUSINESS_EVENT, outcome("user_id", "u".repeat(256), "metadata", deep));
    client.track(EventType.MODEL_CALL, modelCall("latency_ms", ArbiterDefaults.MAX_LATENCY_MS,
        "input_tokens", ArbiterDefaults.MAX_TOKENS, "output_tokens", 2.0,
        "cost_usd", ArbiterDefaults.MAX_COST_USD, "model", "m".repeat(200),
        "error", "e".repeat(4_000), "response", "\ud83d\ude00".repeat(100_000)));
    Map<String, Object> zero = modelCall("user_id", "zero", "latency_ms", 0, "input_tokens", 0,
        "output_tokens", 0, "cost_usd", 0.0, "model", "", "prompt", "");
    zero.put("error", null);
    client.track(EventType.MODEL_CALL, zero);
    assertEquals(5, client.stats().queued());
    client.flush().join();
    assertEquals(List.of(), logger.lines);
    Map<String, Map<String, Object>> stored = fake.events.values().stream()
        .collect(Collectors.toMap(e -> (String) e.get("user_id"), e -> e));
    assertEquals(-limit, ((Number) stored.get("low").get("value")).longValue());
    assertEquals(JsonWriter.write(nested(ArbiterDefaults.METADATA_MAX_DEPTH)),
        JsonWriter.write(stored.get("low").get("metadata")));
    assertEquals(PAD, ((String) ((Map<?, ?>) stored.get("high").get("metadata")).get("p"))
        .length());
    assertEquals(ArbiterDefaults.MAX_TOKENS,
        ((Number) stored.get("user-1").get("input_tokens")).longValue());
    for (Map<String, Object> e : stored.values()) {
      assertEquals(Configs.EXPERIMENT_ID, e.get("experiment_id"));
    }
  }

  /** An Anthropic-like bean whose usage is out of the tokens' domain. */
  public static final class AbsurdUsage {
    public String getModel() {
      return "claude-x";
    }

    public Map<String, Object> getUsage() {
      return Map.of("input_tokens", ArbiterDefaults.MAX_TOKENS + 1, "output_tokens", 9L);
    }
  }

  @Test
  void aModelCallTheApiWouldRefuseIsNotRecordedAndTheExposureGoes() {
    AbsurdUsage result = client.interceptModelCall(Configs.EXPERIMENT, enrolledUser(),
        v -> new AbsurdUsage());
    assertEquals("claude-x", result.getModel());
    client.flush().join();
    assertEquals(List.of("exposure"), fake.events.values().stream()
        .map(e -> e.get("type")).collect(Collectors.toList()));
    assertEquals(List.of("warn: model_call not recorded: input_tokens must be an integer from 0 to "
        + ArbiterDefaults.MAX_TOKENS), logger.lines);
  }

  private String enrolledUser() {
    for (int i = 0; ; i++) {
      if (client.assign(Configs.EXPERIMENT, "user-" + i) != null) return "user-" + i;
    }
  }
}
