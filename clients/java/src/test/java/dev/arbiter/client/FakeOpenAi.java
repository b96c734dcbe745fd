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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * OpenAI's chat-completions endpoint on 127.0.0.1 ({@code POST /v1/chat/completions}), written
 * with the client's own JSON codec (the client's tests have no JSON library). The answer is
 * {@code "answer to: <last user message>"} after {@link #DELAY_MS}, with token counts derived
 * from the texts so that each call has its own; a user message containing "fail" gets a 400
 * with OpenAI's error body. {@link #chat} is the application's side: a plain HTTP call whose
 * parsed answer the client's model-call reader understands.
 */
final class FakeOpenAi implements AutoCloseable {
  static final String MODEL = "gpt-4o-mini-2024-07-18";
  /** Each answer takes at least this long, so a measured latency has a floor to check. */
  static final long DELAY_MS = 5;

  /** Every request body received, parsed. */
  final List<Map<String, Object>> requests = new CopyOnWriteArrayList<>();
  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "fake-openai");
    t.setDaemon(true);
    return t;
  });
  private final HttpClient http = HttpClient.newHttpClient();

  FakeOpenAi() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    server.createContext("/v1/chat/completions", this::handle);
    server.setExecutor(executor);
    server.start();
  }

  String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
  }

  static String answerTo(String userMessage) {
    return "answer to: " + userMessage;
  }

  static long inputTokens(String system, String user) {
    return 10 + system.length() + user.length();
  }

  static long outputTokens(String user) {
    return answerTo(user).length() / 4 + 1;
  }

  /** A chat completion with a system and a user message; the parsed JSON answer. */
  Map<String, Object> chat(String system, String user) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("model", "gpt-4o-mini");
    body.put("messages", List.of(Map.of("role", "system", "content", system),
        Map.of("role", "user", "content", user)));
    try {
      HttpResponse<String> res = http.send(HttpRequest.newBuilder(
          URI.create(baseUrl() + "/chat/completions"))
          .header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(JsonWriter.write(body))).build(),
          HttpResponse.BodyHandlers.ofString());
      Map<?, ?> answer = (Map<?, ?>) JsonReader.parse(res.body());
      if (res.statusCode() != 200) {
        throw new IllegalStateException("OpenAI " + res.statusCode() + ": "
            + ((Map<?, ?>) answer.get("error")).get("message"));
      }
      @SuppressWarnings("unchecked")
      Map<String, Object> typed = (Map<String, Object>) answer;
      return typed;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The assistant's text of a {@link #chat} answer. */
  static String text(Map<String, Object> answer) {
    Map<?, ?> choice = (Map<?, ?>) ((List<?>) answer.get("choices")).get(0);
    return (String) ((Map<?, ?>) choice.get("message")).get("content");
  }

  @SuppressWarnings("unchecked")
  private void handle(HttpExchange ex) throws IOException {
    try {
      Map<String, Object> body = (Map<String, Object>) JsonReader.parse(
          new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
      requests.add(body);
      String system = "";
      String user = "";
      for (Object m : (List<?>) body.get("messages")) {
        Map<?, ?> message = (Map<?, ?>) m;
        if ("system".equals(message.get("role"))) system = (String) message.get("content");
        if ("user".equals(message.get("role"))) user = (String) message.get("content");
      }
      Thread.sleep(DELAY_MS);
      if (user.contains("fail")) {
        send(ex, 400, Map.of("error", Map.of("message", "The model is not available to this key.",
            "type", "invalid_request_error", "code", "model_not_found")));
        return;
      }
      Map<String, Object> answer = new LinkedHashMap<>();
      answer.put("id", "chatcmpl-fake");
      answer.put("object", "chat.completion");
      answer.put("created", 1_764_000_000L);
      answer.put("model", MODEL);
      answer.put("choices", List.of(Map.of("index", 0L, "finish_reason", "stop",
          "message", Map.of("role", "assistant", "content", answerTo(user)))));
      long in = inputTokens(system, user);
      long out = outputTokens(user);
      answer.put("usage", Map.of("prompt_tokens", in, "completion_tokens", out,
          "total_tokens", in + out));
      send(ex, 200, answer);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      ex.close();
    }
  }

  private static void send(HttpExchange ex, int status, Object json) throws IOException {
    byte[] bytes = JsonWriter.write(json).getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
