package dev.arbiter.client;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The one place that talks HTTP. It never throws: every outcome, network failures included, is
 * a {@link Result} the caller has to look at. Requests are synchronous: the scheduler thread
 * makes the config polls and event posts one at a time; {@code evaluate} makes its own from its
 * caller's thread and its upload thread (HttpClient is thread-safe, the rest is immutable or
 * volatile).
 */
final class Transport {
  enum Kind {
    OK,
    NOT_MODIFIED,
    /** The server refused the request for good (a 4xx that retrying would not change). */
    REFUSED,
    /** Every attempt failed on the network, by timeout or with a retryable status. */
    UNREACHABLE
  }

  static final class Result {
    final Kind kind;
    final int status;
    final Object body;
    final String etag;
    final String detail;

    Result(Kind kind, int status, Object body, String etag, String detail) {
      this.kind = kind;
      this.status = status;
      this.body = body;
      this.etag = etag;
      this.detail = detail;
    }
  }

  /** An attempt's outcome: done, or worth another try after an optional Retry-After. */
  private static final class Attempt {
    final Result done;
    final String detail;
    final long retryAfterMs;

    Attempt(Result done, String detail, long retryAfterMs) {
      this.done = done;
      this.detail = detail;
      this.retryAfterMs = retryAfterMs;
    }
  }

  private final HttpClient http;
  private final String baseUrl;
  private final String apiKey;
  private final long timeoutMs;
  private final RetryPolicy policy;
  /** Past this instant (System.nanoTime) no new attempt or wait starts: close() is running out of time. */
  private volatile long giveUpAtNanos = Long.MAX_VALUE;
  private volatile boolean givingUp;

  Transport(HttpClient http, String baseUrl, String apiKey, long timeoutMs, RetryPolicy policy) {
    this.http = http;
    this.baseUrl = baseUrl.replaceAll("/+$", "");
    this.apiKey = apiKey;
    this.timeoutMs = Math.max(1, timeoutMs);
    this.policy = policy;
  }

  void giveUpAt(long nanoTime) {
    giveUpAtNanos = nanoTime;
    givingUp = true;
  }

  Result request(String method, String path, Map<String, String> headers, String body) {
    String detail = "no attempt made";
    for (int attempt = 1; attempt <= policy.maxAttempts; attempt++) {
      if (outOfTime(0)) return unreachable(detail + "; gave up at the close() deadline");
      Attempt outcome = attempt(method, path, headers, body);
      if (outcome.done != null) return outcome.done;
      detail = outcome.detail;
      if (attempt < policy.maxAttempts) {
        long delay = policy.delayMs(attempt, outcome.retryAfterMs,
            ThreadLocalRandom.current().nextDouble());
        if (outOfTime(delay)) return unreachable(detail + "; gave up at the close() deadline");
        if (!sleep(delay)) return unreachable(detail + "; interrupted");
      }
    }
    return unreachable(detail);
  }

  private boolean outOfTime(long waitMs) {
    return givingUp && System.nanoTime() + waitMs * 1_000_000 >= giveUpAtNanos;
  }

  private Attempt attempt(String method, String path, Map<String, String> headers, String body) {
    try {
      long timeout = timeoutMs;
      if (givingUp) {
        timeout = Math.max(1, Math.min(timeout, (giveUpAtNanos - System.nanoTime()) / 1_000_000));
      }
      HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path))
          .timeout(Duration.ofMillis(timeout))
          .header("Accept", "application/json")
          .header("X-API-Key", apiKey)
          .header("User-Agent", "arbiter-java/" + Arbiter.VERSION);
      for (Map.Entry<String, String> h : headers.entrySet()) request.header(h.getKey(), h.getValue());
      if (body == null) {
        request.method(method, HttpRequest.BodyPublishers.noBody());
      } else {
        request.header("Content-Type", "application/json");
        request.method(method, HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
      }
      HttpResponse<String> res =
          http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      int status = res.statusCode();
      if (status == 304) return done(new Result(Kind.NOT_MODIFIED, 304, null, null, ""));
      if (status >= 200 && status < 300) {
        return done(new Result(Kind.OK, status, parseOrNull(res.body()),
            res.headers().firstValue("etag").orElse(null), ""));
      }
      String detail = "HTTP " + status + problemDetail(res.body());
      if (RetryPolicy.isRetryableStatus(status)) {
        long retryAfter = RetryPolicy.parseRetryAfter(
            res.headers().firstValue("retry-after").orElse(null), System.currentTimeMillis());
        return new Attempt(null, detail, retryAfter);
      }
      return done(new Result(Kind.REFUSED, status, null, null, detail));
    } catch (HttpTimeoutException e) {
      return new Attempt(null, "timed out: " + e.getMessage(), -1);
    } catch (IOException e) {
      return new Attempt(null, describe(e), -1);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return done(unreachable("interrupted"));
    } catch (RuntimeException e) {
      // A malformed URL or header is not worth retrying, but it must not escape either.
      return done(unreachable(describe(e)));
    }
  }

  private static Attempt done(Result result) {
    return new Attempt(result, null, -1);
  }

  private static Result unreachable(String detail) {
    return new Result(Kind.UNREACHABLE, 0, null, null, detail);
  }

  private static boolean sleep(long ms) {
    try {
      Thread.sleep(ms);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static Object parseOrNull(String text) {
    if (text == null || text.isEmpty()) return null;
    try {
      return JsonReader.parse(text);
    } catch (IllegalArgumentException unreadable) {
      return null;
    }
  }

  /** RFC 9457 problems carry the useful words in {@code detail} (or {@code title}). */
  private static String problemDetail(String text) {
    Object body = parseOrNull(text);
    if (!(body instanceof Map)) return "";
    Object detail = ((Map<?, ?>) body).get("detail");
    Object title = ((Map<?, ?>) body).get("title");
    Object words = detail instanceof String ? detail : title instanceof String ? title : null;
    return words == null || words.toString().isEmpty() ? "" : ": " + words;
  }

  private static String describe(Exception e) {
    String name = e.getClass().getSimpleName();
    Throwable cause = e.getCause();
    String message = e.getMessage() != null ? e.getMessage()
        : cause != null ? cause.getClass().getSimpleName() + ": " + cause.getMessage() : "";
    return name + (message.isEmpty() ? "" : ": " + message);
  }
}
