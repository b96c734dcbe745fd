package dev.arbiter.client;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The real Arbiter server ({@code node apps/server/bin/arbiter.js serve}) on a free loopback
 * port with an embedded database in a temporary directory, and a development session token
 * for the dashboard routes the tests read back through.
 */
final class RealServer implements AutoCloseable {
  private static final Pattern RUNNING = Pattern.compile("Arbiter is running at (http://\\S+)");

  final String baseUrl;
  final String sessionToken;
  private final Process process;
  private final Path dataDir;
  private final HttpClient http = HttpClient.newHttpClient();

  private RealServer(String baseUrl, String sessionToken, Process process, Path dataDir) {
    this.baseUrl = baseUrl;
    this.sessionToken = sessionToken;
    this.process = process;
    this.dataDir = dataDir;
  }

  static RealServer start() throws Exception {
    Path root = RepoFiles.root();
    Path dataDir = Files.createTempDirectory("arbiter-java-data-");
    String bin = root.resolve("apps/server/bin/arbiter.js").toString();
    ProcessBuilder serve = new ProcessBuilder("node", bin, "serve").directory(root.toFile())
        .redirectErrorStream(true);
    environment(serve, dataDir);
    Process process = serve.start();
    CompletableFuture<String> url = new CompletableFuture<>();
    StringBuilder output = new StringBuilder();
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(
          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          synchronized (output) {
            output.append(line).append('\n');
          }
          Matcher m = RUNNING.matcher(line);
          if (m.find()) url.complete(m.group(1));
        }
      } catch (IOException ignored) {
        // The process ended.
      }
      url.completeExceptionally(new IllegalStateException("arbiter serve exited:\n" + output));
    }, "arbiter-serve-output");
    reader.setDaemon(true);
    reader.start();
    String baseUrl = url.get();

    ProcessBuilder token = new ProcessBuilder("node", bin, "token", "--email", "java@example.com",
        "--org", "java-client-org", "--role", "admin").directory(root.toFile());
    environment(token, dataDir);
    Process t = token.start();
    String out = new String(t.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    String err = new String(t.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    if (t.waitFor() != 0 || out.isEmpty()) {
      process.destroy();
      throw new IllegalStateException("arbiter token failed: " + err);
    }
    String[] lines = out.split("\n");
    return new RealServer(baseUrl, lines[lines.length - 1].trim(), process, dataDir);
  }

  private static void environment(ProcessBuilder pb, Path dataDir) {
    Map<String, String> env = pb.environment();
    env.put("ARBITER_PORT", "0");
    env.put("ARBITER_DATA_DIR", dataDir.toString());
    env.put("ARBITER_SESSION_JWKS_URL", "");
    env.put("ARBITER_DATABASE_URL", "");
    env.put("ARBITER_SECRET_KEY", "");
    env.put("ARBITER_LOG_LEVEL", "warn");
    // RealServerTest sends some 60,000 POST /v1/assign in a minute: past the default budget.
    env.put("ARBITER_RATE_LIMIT_SECRET_PER_MINUTE", "10000000");
    env.put("ARBITER_RATE_LIMIT_PUBLISHABLE_PER_MINUTE", "10000000");
  }

  /** A dashboard call with the session token; the parsed JSON answer. */
  Object session(String method, String path, Object body) throws Exception {
    return call(method, path, body, "Authorization", "Bearer " + sessionToken, null);
  }

  /** An ingest call with an API key; the parsed JSON answer. */
  Object ingest(String apiKey, String method, String path, Object body) throws Exception {
    return call(method, path, body, "X-API-Key", apiKey, null);
  }

  Object call(String method, String path, Object body, String header, String value,
      int[] status) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(baseUrl + path)).header(header, value);
    if (body == null) {
      b.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      b.header("Content-Type", "application/json")
          .method(method, HttpRequest.BodyPublishers.ofString(JsonWriter.write(body)));
    }
    HttpResponse<String> res = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    if (status != null) status[0] = res.statusCode();
    if (res.statusCode() >= 300) {
      throw new IllegalStateException(method + " " + path + " answered " + res.statusCode()
          + ": " + res.body());
    }
    return res.body().isEmpty() ? null : JsonReader.parse(res.body());
  }

  /**
   * Throws IOException only: an AutoCloseable whose close() may throw InterruptedException
   * would hide the interrupt from try-with-resources (javac's "try" lint).
   */
  @Override
  public void close() throws IOException {
    process.destroy();
    try {
      process.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
    deleteTree(dataDir);
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) return;
    List<Path> paths = new ArrayList<>();
    try (var walk = Files.walk(dir)) {
      walk.forEach(paths::add);
    }
    for (int i = paths.size() - 1; i >= 0; i--) Files.deleteIfExists(paths.get(i));
  }
}
