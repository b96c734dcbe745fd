package dev.arbiter.client;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The real server (from the client's test jar) with a two-variant experiment, a dataset and the
 * org's secret key, for the integrations' tests of {@code evaluate}. In this package, on the
 * test classpath only, because {@link RealServer} is package-private.
 */
public final class EvaluationFixture implements AutoCloseable {
  public static final String EXPERIMENT = "langchain4j-evaluate";
  public static final String DATASET = "langchain4j-evaluate-questions";
  /** The variants' prompts by key. */
  public static final Map<String, String> PROMPTS =
      Map.of("control", "Answer briefly.", "concise", "Answer in one word.");
  /** The dataset's items: id to input. */
  public static final Map<String, String> ITEMS =
      new TreeMap<>(Map.of("q1", "What is 2+2?", "q2", "Capital of France?"));

  public final String baseUrl;
  public final String secretKey;
  private final RealServer server;

  public EvaluationFixture() throws Exception {
    server = RealServer.start();
    baseUrl = server.baseUrl;
    Map<String, Object> config = new LinkedHashMap<>();
    config.put("name", EXPERIMENT);
    config.put("salt", "langchain4j-evaluate-salt");
    config.put("bucket_count", 10_000L);
    config.put("allocation", List.of(Map.of("variant", "control", "weight", 50L),
        Map.of("variant", "concise", "weight", 50L)));
    config.put("variants", List.of(Map.of("key", "control", "prompt", PROMPTS.get("control")),
        Map.of("key", "concise", "prompt", PROMPTS.get("concise"))));
    config.put("metrics", List.of());
    server.session("POST", "/v1/experiments", config);
    String dataset = (String) ((Map<?, ?>) server.session("POST", "/v1/datasets",
        Map.of("name", DATASET))).get("id");
    List<Map<String, Object>> items = new java.util.ArrayList<>();
    ITEMS.forEach((id, input) -> items.add(Map.of("id", id, "input", input)));
    server.session("POST", "/v1/datasets/" + dataset + "/items", Map.of("items", items));
    secretKey = (String) ((Map<?, ?>) server.session("POST", "/v1/keys",
        Map.of("scope", "secret"))).get("key");
  }

  /** Every result of the run: "item/variant/repeat" to the result as the items view serves it. */
  public Map<String, Map<?, ?>> results(String runId) throws Exception {
    Map<?, ?> page = (Map<?, ?>) server.session("GET",
        "/v1/offline-runs/" + runId + "/items?sort=item&limit=500", null);
    Map<String, Map<?, ?>> out = new TreeMap<>();
    for (Object raw : (List<?>) page.get("data")) {
      Map<?, ?> item = (Map<?, ?>) raw;
      for (Map.Entry<?, ?> v : ((Map<?, ?>) item.get("variants")).entrySet()) {
        for (Object r : (List<?>) v.getValue()) {
          out.put(item.get("id") + "/" + v.getKey() + "/" + ((Map<?, ?>) r).get("repeat"),
              (Map<?, ?>) r);
        }
      }
    }
    return out;
  }

  /** Events the org's usage meter counted. */
  public long eventsUsed() throws Exception {
    Map<?, ?> usage = (Map<?, ?>) server.session("GET", "/v1/usage", null);
    return (Long) ((Map<?, ?>) usage.get("events")).get("used");
  }

  @Override
  public void close() throws java.io.IOException {
    server.close();
  }
}
