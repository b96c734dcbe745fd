package dev.arbiter.client;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An Arbiter ingest plane on 127.0.0.1 that follows docs/wire-format.md, as strict as the
 * document (unknown fields and malformed events come back in {@code rejected}), and that injects
 * faults into the next {@code POST /v1/events} requests on demand.
 */
final class FakeArbiter implements AutoCloseable {
  /** Faults for the next event posts, used up in order. */
  enum FaultKind {
    STATUS,
    /** Never answers (until the server stops): the client's timeout must fire. */
    HANG,
    /** Stores the batch, then drops the connection without answering: the ack is lost. */
    STORE_THEN_RESET,
    /** Stores the batch, then the whole server goes down (until {@code start()}). */
    STORE_THEN_DIE
  }

  static final class Fault {
    final FaultKind kind;
    final int status;
    final String retryAfter;

    private Fault(FaultKind kind, int status, String retryAfter) {
      this.kind = kind;
      this.status = status;
      this.retryAfter = retryAfter;
    }

    static Fault status(int status) {
      return new Fault(FaultKind.STATUS, status, null);
    }

    static Fault status(int status, String retryAfter) {
      return new Fault(FaultKind.STATUS, status, retryAfter);
    }

    static Fault of(FaultKind kind) {
      return new Fault(kind, 0, null);
    }
  }

  static final Set<String> EVENT_FIELDS = Set.of("event_id", "type", "experiment_id", "user_id",
      "timestamp", "variant", "latency_ms", "input_tokens", "output_tokens", "cost_usd", "model",
      "error", "prompt", "response", "business_metric", "value", "metadata");

  static {
    // Without it each answer waits for the client's delayed ACK (Nagle): 40 ms a request.
    System.setProperty("sun.net.httpserver.nodelay", "true");
  }

  final String apiKey;
  /** Stored events, one per event_id, as the real server dedupes them. */
  final Map<String, Map<String, Object>> events = new ConcurrentHashMap<>();
  /** The User-Agent of the latest request. */
  volatile String userAgent;
  /** The event ids of every event post that reached the server, in arrival order. */
  final List<List<String>> deliveries = Collections.synchronizedList(new ArrayList<>());
  /** Every config request: the If-None-Match sent and the status answered. */
  final List<String[]> configRequests = Collections.synchronizedList(new ArrayList<>());
  final ConcurrentLinkedQueue<Fault> faults = new ConcurrentLinkedQueue<>();
  /** Every tally {@code POST /v1/targeting-tallies} accepted, in arrival order. */
  final List<Map<String, Object>> tallies = Collections.synchronizedList(new ArrayList<>());
  /** Tally posts that reached the server, refused ones included. */
  final AtomicInteger tallyRequests = new AtomicInteger();
  /** Statuses the next tally posts answer, used up in order. */
  final ConcurrentLinkedQueue<Integer> tallyFaults = new ConcurrentLinkedQueue<>();
  private volatile Map<String, Object> config;
  private volatile int port;
  private volatile HttpServer server;
  private volatile CountDownLatch hanging = new CountDownLatch(1);
  private ExecutorService executor;

  FakeArbiter(Map<String, Object> config) throws IOException {
    this(config, "svc_pk_test");
  }

  /** A fake taking {@code apiKey} only: the secret key ({@code svc_sk_}) for the tallies. */
  FakeArbiter(Map<String, Object> config, String apiKey) throws IOException {
    this.config = config;
    this.apiKey = apiKey;
    start();
  }

  /** The next {@code count} event posts answer {@code status}. */
  void failNext(int count, int status) {
    for (int i = 0; i < count; i++) faults.add(Fault.status(status));
  }

  String baseUrl() {
    return "http://127.0.0.1:" + port;
  }

  void setConfig(Map<String, Object> doc) {
    config = doc;
  }

  synchronized void start() throws IOException {
    executor = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "fake-arbiter");
      t.setDaemon(true);
      return t;
    });
    hanging = new CountDownLatch(1);
    HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);
    s.createContext("/", this::handle);
    s.setExecutor(executor);
    s.start();
    port = s.getAddress().getPort();
    server = s;
  }

  /** Stops listening and cuts open connections; {@code start()} listens again on the same port. */
  synchronized void stop() {
    HttpServer s = server;
    if (s == null) return;
    server = null;
    hanging.countDown();
    s.stop(0);
    executor.shutdownNow();
  }

  @Override
  public void close() {
    stop();
  }

  private void handle(HttpExchange ex) throws IOException {
    try {
      String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      userAgent = ex.getRequestHeaders().getFirst("User-Agent");
      if (!apiKey.equals(ex.getRequestHeaders().getFirst("X-API-Key"))) {
        send(ex, 401, "{\"type\":\"/problems/unknown-api-key\",\"title\":\"Unknown API key\",\"status\":401}");
        return;
      }
      String path = ex.getRequestURI().getPath();
      if (ex.getRequestMethod().equals("GET") && path.equals("/v1/config")) {
        Map<String, Object> doc = config;
        String etag = "\"" + doc.get("config_version") + "\"";
        String inm = ex.getRequestHeaders().getFirst("If-None-Match");
        if (etag.equals(inm)) {
          configRequests.add(new String[] {inm, "304"});
          ex.sendResponseHeaders(304, -1);
          return;
        }
        configRequests.add(new String[] {inm, "200"});
        ex.getResponseHeaders().set("ETag", etag);
        send(ex, 200, JsonWriter.write(doc));
        return;
      }
      if (ex.getRequestMethod().equals("POST") && path.equals("/v1/events")) {
        postEvents(ex, body);
        return;
      }
      if (ex.getRequestMethod().equals("POST") && path.equals("/v1/targeting-tallies")) {
        postTallies(ex, body);
        return;
      }
      send(ex, 404, "{\"title\":\"Not found\",\"status\":404}");
    } finally {
      ex.close();
    }
  }

  private void postEvents(HttpExchange ex, String body) throws IOException {
    List<?> batch;
    try {
      batch = (List<?>) ((Map<?, ?>) JsonReader.parse(body)).get("events");
    } catch (RuntimeException e) {
      send(ex, 400, "{\"title\":\"Malformed JSON\",\"status\":400}");
      return;
    }
    List<String> ids = new ArrayList<>();
    for (Object e : batch) ids.add(String.valueOf(((Map<?, ?>) e).get("event_id")));
    deliveries.add(ids);
    Fault fault = faults.poll();
    if (fault != null && fault.kind == FaultKind.STATUS) {
      if (fault.retryAfter != null) ex.getResponseHeaders().set("Retry-After", fault.retryAfter);
      send(ex, fault.status, "{\"title\":\"Injected fault\",\"status\":" + fault.status + "}");
      return;
    }
    if (fault != null && fault.kind == FaultKind.HANG) {
      try {
        hanging.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException stopped) {
        Thread.currentThread().interrupt();
      }
      return;
    }
    List<Map<String, Object>> rejected = new ArrayList<>();
    int accepted = 0;
    for (int i = 0; i < batch.size(); i++) {
      @SuppressWarnings("unchecked")
      Map<String, Object> event = (Map<String, Object>) batch.get(i);
      String problem = problemOf(event);
      if (problem != null) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("index", (long) i);
        r.put("detail", problem);
        rejected.add(r);
        continue;
      }
      events.putIfAbsent((String) event.get("event_id"), event);
      accepted++;
    }
    if (fault != null && fault.kind == FaultKind.STORE_THEN_RESET) {
      // Closing the exchange before any response header drops the connection: the ack is lost.
      return;
    }
    if (fault != null && fault.kind == FaultKind.STORE_THEN_DIE) {
      new Thread(this::stop).start();
      return;
    }
    Map<String, Object> ack = new LinkedHashMap<>();
    ack.put("accepted", (long) accepted);
    ack.put("config_version", config.get("config_version"));
    ack.put("rejected", rejected);
    send(ex, 202, JsonWriter.write(ack));
  }

  /** The route's shape (docs/wire-format.md): 1 to 1,000 tallies of exactly four fields. */
  private void postTallies(HttpExchange ex, String body) throws IOException {
    tallyRequests.incrementAndGet();
    if (!apiKey.startsWith("svc_sk_")) {
      // As the real route: the secret key only.
      send(ex, 401, "{\"type\":\"/problems/invalid-credential\",\"status\":401}");
      return;
    }
    Integer fault = tallyFaults.poll();
    if (fault != null) {
      send(ex, fault, "{\"title\":\"Injected fault\",\"status\":" + fault + ",\"detail\":\"injected\"}");
      return;
    }
    Object list = ((Map<?, ?>) JsonReader.parse(body)).get("tallies");
    if (!(list instanceof List) || ((List<?>) list).isEmpty() || ((List<?>) list).size() > 1_000) {
      send(ex, 400, "{\"title\":\"Validation error\",\"status\":400,\"detail\":\"tallies\"}");
      return;
    }
    for (Object t : (List<?>) list) {
      Map<?, ?> tally = (Map<?, ?>) t;
      if (!tally.keySet().equals(Set.of("experiment_id", "day", "matched", "excluded"))
          || !String.valueOf(tally.get("day")).matches("\\d{4}-\\d{2}-\\d{2}")
          || !(tally.get("matched") instanceof Long) || !(tally.get("excluded") instanceof Long)) {
        send(ex, 400, "{\"title\":\"Validation error\",\"status\":400,\"detail\":\"tally\"}");
        return;
      }
    }
    for (Object t : (List<?>) list) {
      @SuppressWarnings("unchecked")
      Map<String, Object> tally = (Map<String, Object>) t;
      tallies.add(tally);
    }
    send(ex, 200, "{\"accepted\":" + ((List<?>) list).size() + ",\"rejected\":[]}");
  }

  private static String problemOf(Map<String, Object> e) {
    for (String field : e.keySet()) {
      if (!EVENT_FIELDS.contains(field)) return field + ": unknown field";
    }
    for (String field : List.of("event_id", "type", "experiment_id", "user_id", "timestamp")) {
      if (!(e.get(field) instanceof String) || ((String) e.get(field)).isEmpty()) {
        return field + ": required";
      }
    }
    if (!(e.get("type") instanceof String)
        || EventType.fromWireName((String) e.get("type")) == null) {
      return "type: unknown";
    }
    try {
      java.time.Instant.parse((String) e.get("timestamp"));
    } catch (RuntimeException bad) {
      return "timestamp: must be an ISO 8601 date-time";
    }
    return null;
  }

  private static void send(HttpExchange ex, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type",
        status >= 400 ? "application/problem+json" : "application/json");
    ex.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }
}
