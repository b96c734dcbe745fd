package dev.arbiter.client;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Map;
import java.util.Set;

/**
 * Why the API would refuse an event, found at {@code track} time: a refusal found at flush time
 * would cost the whole batch a round trip and put the log line far from the caller's mistake.
 * Mirrors the server's rules (docs/wire-format.md, docs/decisions/ingest.md#events) and the
 * TypeScript client's checks: the text rule on every string and id (PostgreSQL cannot store NUL
 * or an unpaired UTF-16 surrogate), the fields' lengths, the numeric domains, and the free-form
 * JSON limit of {@code metadata} (depth and size).
 */
final class EventValidation {
  /** The fields a caller may set; {@code event_id}, {@code type} and {@code timestamp} are the client's. */
  static final Set<String> PAYLOAD_FIELDS = Set.of("experiment_id", "user_id", "variant",
      "latency_ms", "input_tokens", "output_tokens", "cached_input_tokens", "reasoning_tokens",
      "cost_usd", "model", "error", "prompt", "response", "business_metric", "value", "metadata");

  /** The numeric domains, lowest and highest value per field. */
  private static final Map<String, double[]> DOMAIN = Map.of(
      "latency_ms", new double[] {0, ArbiterDefaults.MAX_LATENCY_MS},
      "input_tokens", new double[] {0, ArbiterDefaults.MAX_TOKENS},
      "output_tokens", new double[] {0, ArbiterDefaults.MAX_TOKENS},
      "cached_input_tokens", new double[] {0, ArbiterDefaults.MAX_TOKENS},
      "reasoning_tokens", new double[] {0, ArbiterDefaults.MAX_TOKENS},
      "cost_usd", new double[] {0, ArbiterDefaults.MAX_COST_USD},
      "value", new double[] {-ArbiterDefaults.MAX_ABS_BUSINESS_VALUE,
          ArbiterDefaults.MAX_ABS_BUSINESS_VALUE});
  private static final Set<String> INTEGRAL = Set.of("input_tokens", "output_tokens",
      "cached_input_tokens", "reasoning_tokens");
  /** Longest text the server takes per field (apps/server event schema). */
  static final Map<String, Integer> MAX_LENGTH = Map.of("experiment_id", 200, "variant", 64,
      "model", 200, "error", 4_000, "prompt", 200_000, "response", 200_000,
      "business_metric", 128);
  private static final Set<String> TEXT = Set.of("experiment_id", "user_id", "variant", "model",
      "prompt", "response", "business_metric");
  static final Set<String> BUSINESS_ONLY = Set.of("business_metric", "value");
  static final Set<String> MODEL_CALL_ONLY = Set.of("latency_ms", "input_tokens",
      "output_tokens", "cached_input_tokens", "reasoning_tokens", "cost_usd", "model", "error",
      "prompt", "response");

  private EventValidation() {}

  /**
   * Any string buckets (the shared vectors include the empty one), but the API stores only user
   * ids of 1 to 256 UTF-16 units of storable text, so no event is made for others.
   */
  static boolean isWireUserId(String user) {
    return user != null && !user.isEmpty() && user.length() <= ArbiterDefaults.MAX_USER_ID_LENGTH
        && textProblem(user) == null;
  }

  /** Why {@code metadata} breaks the free-form JSON limit (types, depth, text, size), or null. */
  static String metadataProblem(Map<String, ?> metadata) {
    String bad = valueProblem("metadata", metadata, 1);
    if (bad != null) return bad;
    int bytes = JsonWriter.write(metadata).getBytes(StandardCharsets.UTF_8).length;
    return bytes > ArbiterDefaults.METADATA_MAX_BYTES
        ? "metadata is " + bytes + " bytes as JSON, more than " + ArbiterDefaults.METADATA_MAX_BYTES
        : null;
  }

  /** Null when the event would be accepted, else why not. */
  static String problem(EventType type, Map<String, ?> payload) {
    if (type == null) return "the event type is null";
    if (payload == null) return "payload is null";
    for (Map.Entry<String, ?> e : payload.entrySet()) {
      String bad = fieldProblem(type, e.getKey(), e.getValue());
      if (bad != null) return bad;
    }
    if (payload.containsKey("metadata")) {
      int bytes = JsonWriter.write(payload.get("metadata")).getBytes(StandardCharsets.UTF_8).length;
      if (bytes > ArbiterDefaults.METADATA_MAX_BYTES) {
        return "metadata is " + bytes + " bytes as JSON, more than "
            + ArbiterDefaults.METADATA_MAX_BYTES;
      }
    }
    return requiredProblem(type, payload);
  }

  /** Null when one field of a payload is known, of its type, in its domain and on its event. */
  private static String fieldProblem(EventType type, String field, Object value) {
    if (field == null || !PAYLOAD_FIELDS.contains(field)) return "unknown field " + field;
    if (TEXT.contains(field) && value != null && !(value instanceof String)) {
      return field + " must be a string";
    }
    double[] domain = DOMAIN.get(field);
    if (domain != null && (!inDomain(value, domain)
        || (INTEGRAL.contains(field) && !isIntegral((Number) value)))) {
      return field + " must be " + (INTEGRAL.contains(field) ? "an integer" : "a number")
          + " from " + (long) domain[0] + " to " + (long) domain[1];
    }
    Integer max = MAX_LENGTH.get(field);
    if (max != null && value instanceof String && ((String) value).length() > max) {
      return field + " is longer than " + max + " characters";
    }
    if (field.equals("variant") && "".equals(value)) return "variant must not be empty";
    if (BUSINESS_ONLY.contains(field) && type != EventType.BUSINESS_EVENT) {
      return field + ": only business_event carries it";
    }
    if (MODEL_CALL_ONLY.contains(field) && type != EventType.MODEL_CALL) {
      return field + ": only model_call carries it";
    }
    if (field.equals("error") && value != null && !(value instanceof String)) {
      return "error must be a string or null";
    }
    if (field.equals("metadata") && !(value instanceof Map)) {
      return "metadata must be an object";
    }
    return valueProblem(field, value, 1);
  }

  /** Null when the fields every event needs, and a business event's own, are present. */
  private static String requiredProblem(EventType type, Map<String, ?> payload) {
    Object experiment = payload.get("experiment_id");
    if (!(experiment instanceof String) || ((String) experiment).isEmpty()) {
      return "experiment_id is missing";
    }
    Object user = payload.get("user_id");
    if (!(user instanceof String) || ((String) user).isEmpty()
        || ((String) user).length() > ArbiterDefaults.MAX_USER_ID_LENGTH) {
      return "user_id must be 1 to " + ArbiterDefaults.MAX_USER_ID_LENGTH + " characters";
    }
    if (type == EventType.BUSINESS_EVENT) {
      Object metric = payload.get("business_metric");
      if (!(metric instanceof String) || ((String) metric).isEmpty()) {
        return "business_metric is missing";
      }
      Object value = payload.get("value");
      if (!(value instanceof Number) || !Double.isFinite(((Number) value).doubleValue())) {
        return "value must be a finite number";
      }
    }
    return null;
  }

  /**
   * Strings storable, numbers finite, only JSON types, at most the free-form JSON limit of
   * nesting ({@code depth} is the level of {@code value}, the field itself being 1). Stops one
   * level past the limit, so no depth a caller builds can overflow the stack.
   */
  private static String valueProblem(String path, Object value, int depth) {
    if (value == null || value instanceof Boolean) return null;
    if ((value instanceof Map || value instanceof Collection)
        && depth > ArbiterDefaults.METADATA_MAX_DEPTH) {
      return path + " is nested deeper than " + ArbiterDefaults.METADATA_MAX_DEPTH + " levels";
    }
    if (value instanceof String) {
      String text = textProblem((String) value);
      return text == null ? null : path + ": " + text;
    }
    if (value instanceof Number) {
      double d = ((Number) value).doubleValue();
      return Double.isFinite(d) ? null : path + " must be a finite number";
    }
    if (value instanceof Map) {
      for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
        if (!(e.getKey() instanceof String)) return path + " has a key that is not a string";
        String key = (String) e.getKey();
        String text = textProblem(key);
        if (text != null) return path + " key: " + text;
        String bad = valueProblem(path + "." + key, e.getValue(), depth + 1);
        if (bad != null) return bad;
      }
      return null;
    }
    if (value instanceof Collection) {
      int i = 0;
      for (Object item : (Collection<?>) value) {
        String bad = valueProblem(path + "[" + i++ + "]", item, depth + 1);
        if (bad != null) return bad;
      }
      return null;
    }
    return path + " is a " + value.getClass().getSimpleName() + ", not a JSON value";
  }

  /** NUL and unpaired surrogates are valid in JSON but cannot be stored by the server. */
  static String textProblem(String text) {
    int n = text.length();
    for (int i = 0; i < n; i++) {
      char c = text.charAt(i);
      if (c == 0) return "contains a NUL character";
      if (Character.isHighSurrogate(c)) {
        if (i + 1 < n && Character.isLowSurrogate(text.charAt(i + 1))) {
          i++;
        } else {
          return "contains an unpaired surrogate";
        }
      } else if (Character.isLowSurrogate(c)) {
        return "contains an unpaired surrogate";
      }
    }
    return null;
  }

  private static boolean isIntegral(Number value) {
    double d = value.doubleValue();
    return d == Math.rint(d);
  }

  /** Null is out of every domain, as on the server: a number field is a number when present. */
  private static boolean inDomain(Object value, double[] domain) {
    if (!(value instanceof Number)) return false;
    double d = ((Number) value).doubleValue();
    return Double.isFinite(d) && d >= domain[0] && d <= domain[1];
  }
}
