package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The client refuses exactly what the server refuses: every limit of testdata/wire-limits.json
 * (generated from packages/contract) is taken at its value and refused one step past it.
 */
class WireLimitsTest {
  private static final Map<String, Object> LIMITS = RepoFiles.json("testdata/wire-limits.json");
  /** The event type that carries each field; the others go on an exposure. */
  private static final Map<String, String> CARRIED_BY = Map.of(
      "business_metric", "business_event", "value", "business_event",
      "model", "model_call", "error", "model_call", "prompt", "model_call",
      "response", "model_call", "latency_ms", "model_call", "input_tokens", "model_call",
      "output_tokens", "model_call", "cost_usd", "model_call");

  @SuppressWarnings("unchecked")
  private static Map<String, Object> section(Map<String, Object> parent, String name) {
    return (Map<String, Object>) parent.get(name);
  }

  private static double number(Map<String, Object> limit, String name) {
    return ((Number) limit.get(name)).doubleValue();
  }

  /** The problem of an event carrying {@code value} in {@code field}, or null. */
  private static String problem(String field, Object value) {
    String type = CARRIED_BY.getOrDefault(field, "exposure");
    Map<String, Object> payload = new HashMap<>();
    payload.put("experiment_id", "checkout");
    payload.put("user_id", "user-1");
    if (type.equals("business_event")) {
      payload.put("business_metric", "revenue");
      payload.put("value", 1);
    }
    payload.put(field, value);
    return EventValidation.problem(EventType.fromWireName(type), payload);
  }

  private static void assertRefused(String field, Object value) {
    String problem = problem(field, value);
    assertNotNull(problem, field + " = " + value);
    assertTrue(problem.contains(field), problem);
  }

  private static Map<String, Object> nested(int levels) {
    Map<String, Object> node = new HashMap<>(Map.of("leaf", 1));
    for (int i = 1; i < levels; i++) node = new HashMap<>(Map.of("a", node));
    return node;
  }

  @Test
  void textFieldsTakeTheirLengthLimitsAndRefuseOnePastThem() {
    Map<String, Object> text = section(section(LIMITS, "event"), "text");
    for (String field : text.keySet()) {
      if (field.equals("event_id")) continue; // set by the client itself, never by a payload
      Map<String, Object> limit = section(text, field);
      int max = (int) number(limit, "maxLength");
      assertNull(problem(field, "x".repeat(max)), field);
      assertRefused(field, "x".repeat(max + 1));
      if (number(limit, "minLength") > 0) assertRefused(field, "");
      else assertNull(problem(field, ""), field);
    }
  }

  @Test
  void numbersTakeTheirDomainAndRefuseWhatLiesOutside() {
    Map<String, Object> numbers = section(section(LIMITS, "event"), "numbers");
    for (String field : numbers.keySet()) {
      Map<String, Object> domain = section(numbers, field);
      double low = number(domain, "minimum");
      double high = number(domain, "maximum");
      assertNull(problem(field, low), field);
      assertNull(problem(field, high), field);
      assertRefused(field, high + 1);
      assertRefused(field, low - 1);
      if (Boolean.TRUE.equals(domain.get("integer"))) assertRefused(field, high - 0.5);
      else assertNull(problem(field, high - 0.5), field);
    }
  }

  @Test
  void metadataTakesTheFreeFormJsonDepthAndSizeAndRefusesOnePastThem() {
    Map<String, Object> limit = section(LIMITS, "freeFormJson");
    int depth = (int) number(limit, "maxDepth");
    int bytes = (int) number(limit, "maxBytes");
    int padding = "{\"p\":\"\"}".length();
    assertNull(problem("metadata", nested(depth)));
    assertRefused("metadata", nested(depth + 1));
    assertNull(problem("metadata", Map.of("p", "x".repeat(bytes - padding))));
    assertRefused("metadata", Map.of("p", "x".repeat(bytes - padding + 1)));
  }

  @Test
  void storableTextIsWhatTheSharedPatternMatches() {
    Pattern rule = Pattern.compile((String) section(LIMITS, "textRule").get("pattern"));
    for (String text : new String[] {"", "plain", "a\u0000b", "a\ud800b", "\udfff",
        "\ud83d\ude00", "\u00e9\u00a0\u00df"}) {
      assertEquals(rule.matcher(text).matches(), EventValidation.textProblem(text) == null, text);
    }
  }

  @Test
  void constantsThatCarryAWireLimitEqualIt() {
    Map<String, Object> text = section(section(LIMITS, "event"), "text");
    Map<String, Object> batch = section(LIMITS, "batch");
    Map<String, Object> freeForm = section(LIMITS, "freeFormJson");
    assertEquals(number(section(text, "user_id"), "maxLength"), ArbiterDefaults.MAX_USER_ID_LENGTH);
    assertEquals(number(section(text, "prompt"), "maxLength"), ArbiterDefaults.MAX_MODEL_TEXT_LENGTH);
    assertEquals(number(section(text, "response"), "maxLength"),
        ArbiterDefaults.MAX_MODEL_TEXT_LENGTH);
    // An error message is cut shorter than the server takes: a stack trace is not a metric.
    assertTrue(ArbiterDefaults.MAX_ERROR_LENGTH <= number(section(text, "error"), "maxLength"));
    assertEquals(number(batch, "maxEvents"), ArbiterDefaults.MAX_EVENT_BATCH_SIZE);
    assertEquals(number(batch, "maxBytes"), ArbiterDefaults.MAX_EVENT_BATCH_BYTES);
    assertEquals(number(freeForm, "maxDepth"), ArbiterDefaults.METADATA_MAX_DEPTH);
    assertEquals(number(freeForm, "maxBytes"), ArbiterDefaults.METADATA_MAX_BYTES);
    // A replayed event must still be young enough for POST /v1/events.
    assertTrue(ArbiterDefaults.OFFLINE_REPLAY_WINDOW_MS
        < number(section(LIMITS, "timestamps"), "maxLiveAgeMs"));
  }
}
