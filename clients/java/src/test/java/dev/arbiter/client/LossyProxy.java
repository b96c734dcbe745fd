package dev.arbiter.client;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * A pass-through to the real server that loses the answers of the next N event posts (or of
 * the requests {@link #lossy} picks) after the server has taken them: the client must retry
 * with the same body, and the server must store each event or result once. It keeps the
 * exchanges on the paths {@link #recorded} picks, for a test to read what went through.
 */
final class LossyProxy implements AutoCloseable {
  static {
    System.setProperty("sun.net.httpserver.nodelay", "true");
  }

  final AtomicInteger acksToLose = new AtomicInteger();
  final AtomicInteger acksLost = new AtomicInteger();
  /** Which request paths may lose their answer. */
  volatile Predicate<String> lossy = path -> path.equals("/v1/events");
  /** Which request paths are kept in {@link #exchanges}. */
  volatile Predicate<String> recorded = path -> false;
  /** Each recorded exchange: path, request body, status, answer body. */
  final List<String[]> exchanges = Collections.synchronizedList(new ArrayList<>());
  private final HttpServer server;
  private final String target;
  private final HttpClient http = HttpClient.newHttpClient();

  LossyProxy(String target) throws IOException {
    this.target = target;
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    server.createContext("/", this::forward);
    server.setExecutor(Executors.newFixedThreadPool(4, r -> {
      Thread t = new Thread(r, "lossy-proxy");
      t.setDaemon(true);
      return t;
    }));
    server.start();
  }

  String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private void forward(HttpExchange ex) throws IOException {
    try {
      byte[] body = ex.getRequestBody().readAllBytes();
      HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(target + ex.getRequestURI()));
      for (String h : List.of("X-API-Key", "If-None-Match", "Content-Type", "Accept")) {
        String v = ex.getRequestHeaders().getFirst(h);
        if (v != null) b.header(h, v);
      }
      b.method(ex.getRequestMethod(), body.length == 0
          ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
      HttpResponse<byte[]> res = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
      String path = ex.getRequestURI().getPath();
      if (recorded.test(path)) {
        exchanges.add(new String[] {path, new String(body, StandardCharsets.UTF_8),
            String.valueOf(res.statusCode()), new String(res.body(), StandardCharsets.UTF_8)});
      }
      boolean picked = lossy.test(path);
      if (picked && res.statusCode() / 100 == 2 && acksToLose.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        acksLost.incrementAndGet();
        return; // closed without an answer: the server has the events, the client no ack
      }
      for (String h : List.of("ETag", "Retry-After", "Content-Type")) {
        res.headers().firstValue(h).ifPresent(v -> ex.getResponseHeaders().set(h, v));
      }
      byte[] answer = res.body();
      ex.sendResponseHeaders(res.statusCode(), answer.length == 0 ? -1 : answer.length);
      if (answer.length > 0) {
        try (OutputStream out = ex.getResponseBody()) {
          out.write(answer);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      ex.close();
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
