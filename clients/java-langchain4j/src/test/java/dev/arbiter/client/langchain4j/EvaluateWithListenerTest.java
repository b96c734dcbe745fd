package dev.arbiter.client.langchain4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.client.Arbiter;
import dev.arbiter.client.ArbiterLogger;
import dev.arbiter.client.Evaluation;
import dev.arbiter.client.EvaluationFixture;
import dev.arbiter.client.OfflineRun;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.openai.OpenAiChatModel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * {@code evaluate} with a task that calls LangChain4j's real {@code OpenAiChatModel} carrying the
 * listener: the calls are measured into the results (tokens, model, latency) and sent as no
 * event, against the real server and a local OpenAI-compatible provider.
 */
class EvaluateWithListenerTest {
  @Test
  void modelCallsThroughTheListenerAreMeasuredIntoTheResults() throws Exception {
    List<String> logged = Collections.synchronizedList(new ArrayList<>());
    ArbiterLogger logger = new ArbiterLogger() {
      @Override
      public void warn(String message) {
        logged.add(message);
      }

      @Override
      public void error(String message) {
        logged.add(message);
      }
    };
    try (EvaluationFixture server = new EvaluationFixture(); FakeOpenAi openai = new FakeOpenAi();
        Arbiter client = Arbiter.builder().apiKey(server.secretKey).baseUrl(server.baseUrl)
            .logger(logger).build()) {
      ChatModel model = OpenAiChatModel.builder().baseUrl(openai.baseUrl()).apiKey("sk-test")
          .modelName("gpt-4o-mini").maxRetries(0)
          .listeners(List.of(new ArbiterChatModelListener(client, EvaluationFixture.EXPERIMENT)))
          .build();
      long usedBefore = server.eventsUsed();
      OfflineRun run = client.evaluate(Evaluation.builder()
          .experiment(EvaluationFixture.EXPERIMENT)
          .dataset(EvaluationFixture.DATASET)
          .task(in -> model.chat(ChatRequest.builder().messages(SystemMessage.from(in.prompt()),
              UserMessage.from((String) in.input())).build()).aiMessage().text())
          .repeats(2)
          .build());
      client.flush().get();

      assertEquals("complete", run.status(), String.valueOf(run.toMap()));
      assertEquals(8, run.receivedResults());
      assertEquals(0, client.stats().sent(), "the calls were sent as no event");
      assertEquals(usedBefore, server.eventsUsed());

      Map<String, Map<?, ?>> results = server.results(run.id());
      assertEquals(8, results.size(), results.keySet().toString());
      for (Map.Entry<String, Map<?, ?>> e : results.entrySet()) {
        String input = EvaluationFixture.ITEMS.get(e.getKey().split("/")[0]);
        Map<?, ?> r = e.getValue();
        assertEquals(FakeOpenAi.answerTo(input), r.get("output"), e.getKey());
        assertEquals((long) FakeOpenAi.inputTokens(input), r.get("input_tokens"), e.getKey());
        assertEquals((long) FakeOpenAi.outputTokens(input), r.get("output_tokens"), e.getKey());
        assertEquals(FakeOpenAi.MODEL, r.get("model"), e.getKey());
        assertTrue(((Number) r.get("latency_ms")).doubleValue() > 0, e.getKey());
      }
      // Each variant's prompt reached the provider once per item and repeat.
      Map<String, Integer> systems = new TreeMap<>();
      openai.requests.forEach(body -> systems.merge(
          body.path("messages").get(0).path("content").asText(), 1, Integer::sum));
      Map<String, Integer> expected = new TreeMap<>();
      EvaluationFixture.PROMPTS.values().forEach(p -> expected.put(p, 4));
      assertEquals(expected, systems);
      assertEquals(List.of(), logged);
    }
  }
}
