package dev.arbiter.client;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The offline-evaluation routes, called from the evaluation's own threads through the client's
 * {@link Transport} (its retries, backoff and {@code Retry-After}). Unlike the event pipeline,
 * a refused request throws: {@code evaluate} is an explicit call.
 */
final class EvaluationApi {
  /** A request that failed because the calling thread was interrupted. */
  static final class Interrupted extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Interrupted() {
      super("interrupted", null, false, false);
    }
  }

  private final Transport transport;

  EvaluationApi(Transport transport) {
    this.transport = transport;
  }

  @SuppressWarnings("unchecked")
  Map<String, Object> get(String path) {
    return (Map<String, Object>) call("GET", path, null);
  }

  @SuppressWarnings("unchecked")
  Map<String, Object> post(String path, Object body) {
    return (Map<String, Object>) call("POST", path, body);
  }

  private Object call(String method, String path, Object body) {
    Transport.Result r = transport.request(method, path, Map.of(),
        body == null ? null : JsonWriter.write(body));
    if (r.kind == Transport.Kind.OK && r.body instanceof Map) return r.body;
    if (Thread.currentThread().isInterrupted()) throw new Interrupted();
    String why = r.kind == Transport.Kind.OK ? "the answer is not a JSON object" : r.detail;
    throw new ArbiterException("Arbiter evaluate: " + method + " " + path.replaceAll("\\?.*", "")
        + " failed: " + why);
  }

  /** One path segment: an experiment or dataset name may hold any character. */
  static String segment(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
