package dev.arbiter.client.langchain4j;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * OpenAI's chat-completions endpoint on 127.0.0.1 ({@code POST /v1/chat/completions}): a JSON
 * answer, or server-sent events when the request asks to stream, with the usage in a last chunk
 * of its own as OpenAI sends it for {@code stream_options.include_usage}. The answer text is
 * {@code "answer to: <last user message>"}, so a test can tell whose call an event records; a
 * user message containing "fail" gets a 400 with OpenAI's error body instead.
 */
final class FakeOpenAi implements AutoCloseable {
  static final String MODEL = "gpt-4o-mini-2024-07-18";
  static final String ERROR_MESSAGE = "The model is not available to this key.";
  /** Streams are cut into pieces of this many characters. */
  private static final int CHUNK = 4;

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Every request body received, parsed. */
  final List<JsonNode> requests = new CopyOnWriteArrayList<>();
  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "fake-openai");
    t.setDaemon(true);
    return t;
  });

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

  /** Token counts derived from the texts, so that each call has its own. */
  static int inputTokens(String userMessage) {
    return 10 + userMessage.length();
  }

  static int outputTokens(String userMessage) {
    return answerTo(userMessage).length() / CHUNK + 1;
  }

  private void handle(HttpExchange ex) throws IOException {
    try {
      JsonNode body = JSON.readTree(ex.getRequestBody());
      requests.add(body);
      String last = "";
      for (JsonNode message : body.path("messages")) {
        if ("user".equals(message.path("role").asText())) last = message.path("content").asText();
      }
      if (last.contains("fail")) {
        ObjectNode error = JSON.createObjectNode();
        error.putObject("error").put("message", ERROR_MESSAGE).put("type", "invalid_request_error")
            .put("code", "model_not_found");
        send(ex, 400, "application/json", JSON.writeValueAsBytes(error));
      } else if (body.path("stream").asBoolean(false)) {
        stream(ex, last);
      } else {
        ObjectNode answer = chunk("chat.completion");
        ObjectNode choice = answer.putArray("choices").addObject();
        choice.put("index", 0).put("finish_reason", "stop");
        choice.putObject("message").put("role", "assistant").put("content", answerTo(last));
        answer.set("usage", usage(last));
        send(ex, 200, "application/json", JSON.writeValueAsBytes(answer));
      }
    } finally {
      ex.close();
    }
  }

  private void stream(HttpExchange ex, String last) throws IOException {
    ex.getResponseHeaders().set("Content-Type", "text/event-stream");
    ex.sendResponseHeaders(200, 0);
    try (OutputStream out = ex.getResponseBody()) {
      String text = answerTo(last);
      ObjectNode first = chunk("chat.completion.chunk");
      first.putArray("choices").addObject().put("index", 0)
          .putObject("delta").put("role", "assistant").put("content", "");
      event(out, first);
      for (int i = 0; i < text.length(); i += CHUNK) {
        ObjectNode piece = chunk("chat.completion.chunk");
        piece.putArray("choices").addObject().put("index", 0)
            .putObject("delta").put("content", text.substring(i, Math.min(text.length(), i + CHUNK)));
        event(out, piece);
      }
      ObjectNode stop = chunk("chat.completion.chunk");
      ObjectNode stopChoice = stop.putArray("choices").addObject();
      stopChoice.put("index", 0).put("finish_reason", "stop");
      stopChoice.putObject("delta");
      event(out, stop);
      ObjectNode usage = chunk("chat.completion.chunk");
      usage.putArray("choices");
      usage.set("usage", usage(last));
      event(out, usage);
      out.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
      out.flush();
    }
  }

  private static ObjectNode chunk(String object) {
    ObjectNode node = JSON.createObjectNode();
    node.put("id", "chatcmpl-fake").put("object", object).put("created", 1_764_000_000L)
        .put("model", MODEL);
    return node;
  }

  private static ObjectNode usage(String last) {
    ObjectNode usage = JSON.createObjectNode();
    usage.put("prompt_tokens", inputTokens(last)).put("completion_tokens", outputTokens(last))
        .put("total_tokens", inputTokens(last) + outputTokens(last));
    return usage;
  }

  private static void event(OutputStream out, JsonNode data) throws IOException {
    out.write(("data: " + JSON.writeValueAsString(data) + "\n\n").getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  private static void send(HttpExchange ex, int status, String type, byte[] body)
      throws IOException {
    ex.getResponseHeaders().set("Content-Type", type);
    ex.sendResponseHeaders(status, body.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(body);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
