package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.arbiter.client.langchain4j.ArbiterChatModelListener;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Java integrations that report tokens without a cost, against the real server and a local
 * server speaking the provider's protocol: the client's model-call reader over an OpenAI chat
 * completion and an Anthropic message (through {@code interceptModelCall}), and the LangChain4j
 * listener over {@code OpenAiChatModel}, whose {@code OpenAiTokenUsage} carries the cached and
 * reasoning details. The stored call, read back through {@code GET /v1/events/export}, has the
 * cost of the server's price table within 1e-12, each kind of token at its own rate, and names
 * the row that priced it.
 */
class PricingRealServerTest {
  private static final String EXPERIMENT = "java-priced";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TODAY = LocalDate.now(ZoneOffset.UTC).toString();
  /** Per model: input and output totals, and the cached and reasoning parts among them. */
  private static final Map<String, long[]> USAGE = Map.of(
      "o3-2025-04-16", new long[] {3000, 800, 1200, 600},
      "claude-sonnet-4-20250514", new long[] {1000, 40, 900, 0},
      "gemini-2.5-flash-preview-04-17", new long[] {12345, 6789, 2345, 4321});

  private static RealServer server;
  private static HttpServer provider;
  private static Map<String, JsonNode> stored;

  @BeforeAll
  static void sendEveryIntegrationsCall() throws Exception {
    server = RealServer.start();
    provider = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    provider.createContext("/v1/chat/completions", ex -> answer(ex, false));
    provider.createContext("/v1/messages", ex -> answer(ex, true));
    provider.start();
    Map<String, Object> config = new LinkedHashMap<>();
    config.put("name", EXPERIMENT);
    config.put("salt", "java-priced-salt");
    config.put("bucket_count", 1000L);
    config.put("allocation", List.of(Map.of("variant", "control", "weight", 50L),
        Map.of("variant", "treatment", "weight", 50L)));
    config.put("metrics", List.of());
    String experimentId =
        (String) ((Map<?, ?>) server.session("POST", "/v1/experiments", config)).get("id");
    String publishable = (String) ((Map<?, ?>) server.session("POST", "/v1/keys",
        Map.of("scope", "publishable"))).get("key");
    try (Arbiter client = Arbiter.builder().apiKey(publishable).baseUrl(server.baseUrl)
        .trackExposures(false).pollInterval(Duration.ofHours(1))
        .flushInterval(Duration.ofHours(1)).build()) {
      assertTrue(client.ready().get());
      assertNotNull(client.assign(EXPERIMENT, "priced-1"));
      client.interceptModelCall(EXPERIMENT, "priced-1",
          variant -> post("/v1/chat/completions", "o3-2025-04-16"));
      client.interceptModelCall(EXPERIMENT, "priced-1",
          variant -> post("/v1/messages", "claude-sonnet-4-20250514"));
      ChatModel model = OpenAiChatModel.builder().baseUrl(base() + "/v1").apiKey("sk-test")
          .modelName("gemini-2.5-flash-preview-04-17").maxRetries(0)
          .listeners(List.of(new ArbiterChatModelListener(client, EXPERIMENT))).build();
      client.withUser("priced-1", () -> model.chat(UserMessage.from("hi")));
      client.flush().get();
    }
    stored = new HashMap<>();
    for (String line : export(experimentId).split("\n")) {
      if (line.isEmpty()) continue;
      JsonNode event = JSON.readTree(line);
      if ("model_call".equals(event.path("type").asText())) stored.put(event.path("model").asText(), event);
    }
  }

  @AfterAll
  static void stop() throws IOException {
    if (provider != null) provider.stop(0);
    if (server != null) server.close();
  }

  @Test
  void theReaderOverOpenAiPricesCachedAndReasoningTokens() throws Exception {
    assertPriced("o3-2025-04-16", "o3");
  }

  @Test
  void theReaderOverAnthropicPricesTheCacheReadAsCachedInput() throws Exception {
    assertPriced("claude-sonnet-4-20250514", "claude-sonnet-4");
  }

  @Test
  void theLangChain4jListenerPassesOpenAiTokenUsageDetailsOn() throws Exception {
    assertPriced("gemini-2.5-flash-preview-04-17", "gemini-2.5-flash-preview-04-17");
    JsonNode row = rowInEffect("gemini-2.5-flash-preview-04-17");
    // Rates that differ per kind, so a call priced at one rate for all would fail above.
    assertNotEquals(row.path("input_per_million").asDouble(),
        row.path("cached_input_per_million").asDouble());
    assertNotEquals(row.path("output_per_million").asDouble(),
        row.path("reasoning_per_million").asDouble());
  }

  private static void assertPriced(String model, String pattern) throws Exception {
    JsonNode call = stored.get(model);
    assertNotNull(call, "no stored call of " + model + " among " + stored.keySet());
    long[] usage = USAGE.get(model);
    assertEquals(usage[0], call.path("input_tokens").asLong(), call.toString());
    assertEquals(usage[1], call.path("output_tokens").asLong(), call.toString());
    assertEquals(usage[2], call.path("cached_input_tokens").asLong(), call.toString());
    assertEquals(usage[3], call.path("reasoning_tokens").asLong(0), call.toString());
    JsonNode row = rowInEffect(pattern);
    assertEquals("builtin:" + pattern + "@" + row.path("effective_from").asText(),
        call.path("priced_by").asText(), call.toString());
    double expected = oracle(row, usage);
    double cost = call.path("cost_usd").asDouble();
    assertTrue(Math.abs(cost - expected) < 1e-12, cost + " is not " + expected);
  }

  /** Each kind at its own rate (a missing cached or reasoning rate is the input or output one). */
  private static double oracle(JsonNode row, long[] usage) {
    double input = row.path("input_per_million").asDouble();
    double output = row.path("output_per_million").asDouble();
    JsonNode cachedRate = row.path("cached_input_per_million");
    JsonNode reasoningRate = row.path("reasoning_per_million");
    double cached = cachedRate.isNumber() ? cachedRate.asDouble() : input;
    double reasoning = reasoningRate.isNumber() ? reasoningRate.asDouble() : output;
    return ((usage[0] - usage[2]) * input + usage[2] * cached
        + (usage[1] - usage[3]) * output + usage[3] * reasoning) / 1e6;
  }

  /** The built-in row of the pattern in effect today: its latest day on or before today. */
  private static JsonNode rowInEffect(String pattern) throws IOException {
    JsonNode table = JSON.readTree(RepoFiles.root()
        .resolve("apps/server/src/domain/model-prices/prices.json").toFile());
    JsonNode best = null;
    for (JsonNode row : table.path("rows")) {
      String day = row.path("effective_from").asText();
      if (!row.path("pattern").asText().equals(pattern) || day.compareTo(TODAY) > 0) continue;
      if (best == null || day.compareTo(best.path("effective_from").asText()) > 0) best = row;
    }
    assertNotNull(best, "no row " + pattern);
    return best;
  }

  private static String base() {
    return "http://127.0.0.1:" + provider.getAddress().getPort();
  }

  /** The application's own call to the provider: its parsed JSON answer, as the reader gets it. */
  private static Object post(String path, String model) {
    try {
      HttpResponse<String> res = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create(base() + path)).header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"" + model + "\"}")).build(),
          HttpResponse.BodyHandlers.ofString());
      return JsonReader.parse(res.body());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * OpenAI's chat completion with its token details, or Anthropic's message, whose cache read is
   * counted apart from its input tokens.
   */
  private static void answer(HttpExchange ex, boolean anthropic) throws IOException {
    try {
      String model = JSON.readTree(ex.getRequestBody()).path("model").asText();
      long[] u = USAGE.get(model);
      ObjectNode body = JSON.createObjectNode().put("id", "fake-1").put("model", model);
      ObjectNode usage = body.putObject("usage");
      if (anthropic) {
        body.put("type", "message").put("role", "assistant").put("stop_reason", "end_turn");
        body.putArray("content").addObject().put("type", "text").put("text", "hello");
        usage.put("input_tokens", u[0] - u[2]).put("cache_read_input_tokens", u[2])
            .put("output_tokens", u[1]);
      } else {
        body.put("object", "chat.completion").put("created", 1_764_000_000L);
        ObjectNode choice = body.putArray("choices").addObject();
        choice.put("index", 0).put("finish_reason", "stop");
        choice.putObject("message").put("role", "assistant").put("content", "hello");
        usage.put("prompt_tokens", u[0]).put("completion_tokens", u[1])
            .put("total_tokens", u[0] + u[1]);
        usage.putObject("prompt_tokens_details").put("cached_tokens", u[2]);
        usage.putObject("completion_tokens_details").put("reasoning_tokens", u[3]);
      }
      byte[] bytes = JSON.writeValueAsBytes(body);
      ex.getResponseHeaders().set("Content-Type", "application/json");
      ex.sendResponseHeaders(200, bytes.length);
      ex.getResponseBody().write(bytes);
    } finally {
      ex.close();
    }
  }

  /** {@code GET /v1/events/export} of today, as the dashboard's session reads it: NDJSON. */
  private static String export(String experimentId) throws Exception {
    HttpResponse<String> res = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
        server.baseUrl + "/v1/events/export?experiment=" + experimentId + "&day=" + TODAY))
        .header("Authorization", "Bearer " + server.sessionToken).GET().build(),
        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    assertEquals(200, res.statusCode(), res.body());
    return res.body();
  }
}
