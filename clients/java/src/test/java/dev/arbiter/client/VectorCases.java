package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The runner of the shared assignment vectors (testdata/eligibility.json, testdata/lifecycle.json):
 * each case through {@code assign}, {@code getPrompt} and {@code getVariables} of a client of the
 * file's config, with exactly the exposures it sends, in order, once.
 */
final class VectorCases {
  private final Map<String, Object> vectors;
  private final FakeArbiter fake;
  private final Arbiter client;
  private int delivered;

  VectorCases(Map<String, Object> vectors, ReadyClient ready) {
    this.vectors = vectors;
    this.fake = ready.fake;
    this.client = ready.client;
  }

  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> cases(Map<String, Object> vectors) {
    return (List<Map<String, Object>>) vectors.get("cases");
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> config(Map<String, Object> vectors) {
    return (Map<String, Object>) vectors.get("config");
  }

  @SuppressWarnings("unchecked")
  static Map<String, ?> attributesOf(Map<String, Object> c) {
    return (Map<String, ?>) c.get("attributes");
  }

  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> exposuresOf(Map<String, Object> c) {
    return (List<Map<String, Object>>) c.get("exposures");
  }

  /** The config's entry of an experiment, by name. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> experiment(Map<String, Object> vectors, String name) {
    for (Object e : (List<?>) config(vectors).get("experiments")) {
      if (name.equals(((Map<?, ?>) e).get("name"))) return (Map<String, Object>) e;
    }
    return null;
  }

  /** A case's exposures as {@link #sentSinceLastCall} lists them. */
  static List<List<Object>> expectedExposures(Map<String, Object> c) {
    List<List<Object>> sent = new ArrayList<>();
    for (Map<String, Object> e : exposuresOf(c)) {
      sent.add(List.of(e.get("experiment_id"), c.get("user_id"), e.get("variant")));
    }
    return sent;
  }

  /**
   * Every case: the variant on each surface, the variant's prompt and variables (the defaults
   * without one), and exactly the exposures it sends, in order, once. With {@code prepare} each
   * case's attributes go as one {@link PreparedAttributes}, as one request would keep them.
   */
  void everyCase(boolean prepare) {
    Map<String, Object> defaults = Map.of("v", 1L);
    for (Map<String, Object> c : cases(vectors)) {
      String experiment = (String) c.get("experiment");
      String user = (String) c.get("user_id");
      Map<String, ?> attributes = attributesOf(c);
      PreparedAttributes prepared = PreparedAttributes.of(attributes);
      Map<String, Object> got = new LinkedHashMap<>();
      got.put("name", c.get("name"));
      got.put("assign", prepare ? client.assign(experiment, user, prepared)
          : client.assign(experiment, user, attributes));
      got.put("sent", sentSinceLastCall());
      // The same user again, on the other surfaces: the same variant, no exposure sent twice.
      got.put("prompt", prepare ? client.getPrompt(experiment, user, "default", prepared)
          : client.getPrompt(experiment, user, "default", attributes));
      got.put("variables", prepare ? client.getVariables(experiment, user, defaults, prepared)
          : client.getVariables(experiment, user, defaults, attributes));
      got.put("sent again", sentSinceLastCall());
      Map<String, Object> want = new LinkedHashMap<>();
      want.put("name", c.get("name"));
      want.put("assign", c.get("variant"));
      want.put("sent", expectedExposures(c));
      want.put("prompt", promptOf(experiment, (String) c.get("variant"), "default"));
      want.put("variables", variablesOf(experiment, (String) c.get("variant"), defaults));
      want.put("sent again", List.of());
      assertEquals(want, got);
    }
  }

  /** What {@code getPrompt} should answer: the variant's prompt in the config, else the default. */
  PromptResult promptOf(String experiment, String variant, String defaultPrompt) {
    Object prompt = variantEntry(experiment, variant).get("prompt");
    return prompt instanceof String ? new PromptResult(variant, (String) prompt, false)
        : new PromptResult(variant, defaultPrompt, true);
  }

  /** What {@code getVariables} should answer: the variant's variables over the defaults. */
  Map<String, Object> variablesOf(String experiment, String variant, Map<String, Object> defaults) {
    Map<String, Object> merged = new LinkedHashMap<>(defaults);
    Object variables = variantEntry(experiment, variant).get("variables");
    if (variables instanceof Map) {
      ((Map<?, ?>) variables).forEach((k, v) -> merged.put((String) k, v));
    }
    return merged;
  }

  private Map<?, ?> variantEntry(String experiment, String variant) {
    Map<String, Object> entry = variant == null ? null : experiment(vectors, experiment);
    if (entry == null) return Map.of();
    for (Object v : (List<?>) entry.get("variants")) {
      if (variant.equals(((Map<?, ?>) v).get("key"))) return (Map<?, ?>) v;
    }
    return Map.of();
  }

  /**
   * The events the fake received since the last call, in the order sent: an exposure as the
   * vectors state it, any other event with its type in front.
   */
  List<List<Object>> sentSinceLastCall() {
    client.flush().join();
    List<List<Object>> sent = new ArrayList<>();
    List<List<String>> deliveries = new ArrayList<>(fake.deliveries);
    for (List<String> batch : deliveries.subList(delivered, deliveries.size())) {
      for (String id : batch) {
        Map<String, Object> e = fake.events.get(id);
        sent.add(e == null ? List.of("refused", id)
            : Arrays.asList(e.get("type"), e.get("experiment_id"), e.get("user_id"),
                e.get("variant")).subList("exposure".equals(e.get("type")) ? 1 : 0, 4));
      }
    }
    delivered = deliveries.size();
    return sent;
  }
}
