package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The client refuses exactly what the server refuses: every limit of testdata/wire-limits.json
 * (generated from packages/contract) is taken at its value and refused one step past it.
 */
class WireLimitsTest {
  private static final Map<String, Object> LIMITS = RepoFiles.json("testdata/wire-limits.json");
  @SuppressWarnings("unchecked")
  private static Map<String, Object> section(Map<String, Object> parent, String name) {
    return (Map<String, Object>) parent.get(name);
  }

  @SuppressWarnings("unchecked")
  private static Set<String> names(String name) {
    return new HashSet<>((List<String>) section(LIMITS, "event").get(name));
  }

  /** The event type that carries a field; the fields of every type go on an exposure. */
  private static String carrier(String field) {
    if (names("modelCallOnly").contains(field)) return "model_call";
    if (names("businessOnly").contains(field)) return "business_event";
    return "exposure";
  }

  private static double number(Map<String, Object> limit, String name) {
    return ((Number) limit.get(name)).doubleValue();
  }

  /** The problem of an event carrying {@code value} in {@code field}, or null. */
  private static String problem(String field, Object value) {
    String type = carrier(field);
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
      if (names("clientSet").contains(field)) continue; // the client's own, never a payload's
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

  @Test
  void theEventVocabularyIsTheContracts() {
    Set<String> callerSet = names("fields");
    callerSet.removeAll(names("clientSet"));
    assertEquals(callerSet, EventValidation.PAYLOAD_FIELDS);
    assertEquals(names("modelCallOnly"), EventValidation.MODEL_CALL_ONLY);
    assertEquals(names("businessOnly"), EventValidation.BUSINESS_ONLY);
    assertEquals(names("types"),
        Arrays.stream(EventType.values()).map(EventType::wireName).collect(Collectors.toSet()));
  }
}
