package dev.arbiter.client.langchain4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.client.ArbiterFixture;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.ChatRequestOptions;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The listener on LangChain4j's real {@code OpenAiChatModel} and {@code OpenAiStreamingChatModel},
 * talking to a local server that speaks OpenAI's chat-completions protocol; the events the
 * client sends are read back from its fake ingest server.
 */
class ArbiterChatModelListenerTest {
  private static final String SYSTEM = "You answer in one sentence.";

  private FakeOpenAi openai;
  private ArbiterFixture arbiter;

  @BeforeEach
  void start() throws Exception {
    openai = new FakeOpenAi();
  }

  @AfterEach
  void stop() {
    if (arbiter != null) arbiter.close();
    openai.close();
  }

  private ArbiterFixture arbiter(boolean recordModelText) throws Exception {
    arbiter = new ArbiterFixture(recordModelText);
    return arbiter;
  }

  private ChatModel chatModel() {
    return OpenAiChatModel.builder().baseUrl(openai.baseUrl()).apiKey("sk-test")
        .modelName("gpt-4o-mini").maxRetries(0)
        .listeners(List.of(new ArbiterChatModelListener(arbiter.client, ArbiterFixture.EXPERIMENT)))
        .build();
  }

  private StreamingChatModel streamingModel() {
    return OpenAiStreamingChatModel.builder().baseUrl(openai.baseUrl()).apiKey("sk-test")
        .modelName("gpt-4o-mini")
        .listeners(List.of(new ArbiterChatModelListener(arbiter.client, ArbiterFixture.EXPERIMENT)))
        .build();
  }

  private static ChatRequest question(String text) {
    return ChatRequest.builder().messages(SystemMessage.from(SYSTEM), UserMessage.from(text))
        .build();
  }

  private static String promptOf(String text) {
    return "system: " + SYSTEM + "\nuser: " + text;
  }

  /** One streamed answer: the pieces as they came, and the complete response or the error. */
  private static final class Streamed implements StreamingChatResponseHandler {
    final StringBuilder pieces = new StringBuilder();
    final CompletableFuture<ChatResponse> done = new CompletableFuture<>();

    @Override
    public void onPartialResponse(String partial) {
      pieces.append(partial);
    }

    @Override
    public void onCompleteResponse(ChatResponse response) {
      done.complete(response);
    }

    @Override
    public void onError(Throwable error) {
      done.completeExceptionally(error);
    }
  }

  private static Map<String, Map<String, Object>> byUser(List<Map<String, Object>> events) {
    return events.stream().collect(Collectors.toMap(e -> (String) e.get("user_id"),
        Function.identity()));
  }

  /** A model_call holds what the OpenAI server answered, for the user and experiment asked. */
  private static void assertRecorded(Map<String, Object> call, String user, String question,
      boolean withText) {
    assertEquals(ArbiterFixture.EXPERIMENT_ID, call.get("experiment_id"));
    assertEquals(user, call.get("user_id"));
    assertEquals(FakeOpenAi.MODEL, call.get("model"));
    assertEquals((long) FakeOpenAi.inputTokens(question), call.get("input_tokens"));
    assertEquals((long) FakeOpenAi.outputTokens(question), call.get("output_tokens"));
    assertTrue(call.containsKey("error"));
    assertNull(call.get("error"));
    assertTrue(((Number) call.get("latency_ms")).doubleValue() >= 0);
    assertFalse(call.containsKey("variant"));
    if (withText) {
      assertEquals(promptOf(question), call.get("prompt"));
      assertEquals(FakeOpenAi.answerTo(question), call.get("response"));
    } else {
      assertFalse(call.containsKey("prompt"));
      assertFalse(call.containsKey("response"));
    }
  }

  private void assertExposed(String user) {
    List<Map<String, Object>> exposures = arbiter.stored("exposure").stream()
        .filter(e -> user.equals(e.get("user_id"))).collect(Collectors.toList());
    assertFalse(exposures.isEmpty());
    for (Map<String, Object> e : exposures) {
      assertEquals(ArbiterFixture.EXPERIMENT_ID, e.get("experiment_id"));
      assertEquals(arbiter.client.assign(ArbiterFixture.EXPERIMENT, user), e.get("variant"));
    }
  }

  @Test
  void aChatModelCallIsAnExposureAndAModelCall() throws Exception {
    arbiter(true);
    String user = arbiter.enrolledUsers(1).get(0);
    ChatModel model = chatModel();
    ChatResponse response = arbiter.client.withUser(user,
        () -> model.chat(question("Where is my order?")));

    assertEquals(FakeOpenAi.answerTo("Where is my order?"), response.aiMessage().text());
    assertEquals(1, openai.requests.size());
    List<Map<String, Object>> calls = arbiter.stored("model_call");
    assertEquals(1, calls.size());
    assertRecorded(calls.get(0), user, "Where is my order?", true);
    assertEquals(1, arbiter.stored("exposure").size());
    assertExposed(user);
  }

  @Test
  void aStreamedAnswerIsRecordedWhenItEndsWithTheUsageOfItsLastChunk() throws Exception {
    arbiter(true);
    String user = arbiter.enrolledUsers(1).get(0);
    StreamingChatModel model = streamingModel();
    Streamed handler = new Streamed();
    arbiter.client.withUser(user, () -> model.chat(question("Can I return shoes?"), handler));
    ChatResponse response = handler.done.get();

    String answer = FakeOpenAi.answerTo("Can I return shoes?");
    assertEquals(answer, handler.pieces.toString());
    assertEquals(answer, response.aiMessage().text());
    assertTrue(openai.requests.get(0).path("stream").asBoolean());
    List<Map<String, Object>> calls = arbiter.stored("model_call");
    assertEquals(1, calls.size());
    assertRecorded(calls.get(0), user, "Can I return shoes?", true);
    assertExposed(user);
  }

  /**
   * Streams of different users in flight at once: each response arrives on an HTTP thread, and
   * each call is still the user's whose thread sent it.
   */
  @Test
  void concurrentStreamsAreEachAttributedToTheirUser() throws Exception {
    arbiter(true);
    List<String> users = arbiter.enrolledUsers(12);
    StreamingChatModel model = streamingModel();
    ExecutorService pool = Executors.newFixedThreadPool(users.size());
    try {
      List<Future<ChatResponse>> answers = new ArrayList<>();
      for (String user : users) {
        answers.add(pool.submit(() -> {
          Streamed handler = new Streamed();
          arbiter.client.withUser(user, () -> model.chat(question("I am " + user), handler));
          return handler.done.get();
        }));
      }
      for (int i = 0; i < users.size(); i++) {
        assertEquals(FakeOpenAi.answerTo("I am " + users.get(i)),
            answers.get(i).get().aiMessage().text());
      }
    } finally {
      pool.shutdown();
    }
    Map<String, Map<String, Object>> calls = byUser(arbiter.stored("model_call"));
    assertEquals(users.size(), calls.size());
    for (String user : users) assertRecorded(calls.get(user), user, "I am " + user, true);
  }

  @Test
  void aFailedCallIsRecordedWithItsErrorAndTheErrorStillReachesTheCaller() throws Exception {
    arbiter(true);
    List<String> users = arbiter.enrolledUsers(2);
    ChatModel model = chatModel();
    RuntimeException thrown = assertThrows(RuntimeException.class,
        () -> arbiter.client.withUser(users.get(0), () -> model.chat(question("please fail"))));
    assertTrue(thrown.getMessage().contains(FakeOpenAi.ERROR_MESSAGE), thrown.getMessage());

    StreamingChatModel streaming = streamingModel();
    Streamed handler = new Streamed();
    arbiter.client.withUser(users.get(1), () -> streaming.chat(question("fail too"), handler));
    ExecutionException streamed = assertThrows(ExecutionException.class, () -> handler.done.get());

    Map<String, Map<String, Object>> calls = byUser(arbiter.stored("model_call"));
    assertEquals(2, calls.size());
    assertEquals(thrown.getClass().getSimpleName() + ": " + thrown.getMessage(),
        calls.get(users.get(0)).get("error"));
    Throwable cause = streamed.getCause();
    assertEquals(cause.getClass().getSimpleName() + ": " + cause.getMessage(),
        calls.get(users.get(1)).get("error"));
    assertTrue(((String) calls.get(users.get(1)).get("error")).contains(FakeOpenAi.ERROR_MESSAGE));
    for (Map<String, Object> call : calls.values()) {
      assertTrue(((Number) call.get("latency_ms")).doubleValue() >= 0);
      assertFalse(call.containsKey("input_tokens"));
    }
    assertExposed(users.get(0));
    assertExposed(users.get(1));
  }

  @Test
  void withRecordModelTextOffOnlyMeasurementsAreSent() throws Exception {
    arbiter(false);
    String user = arbiter.enrolledUsers(1).get(0);
    ChatModel model = chatModel();
    arbiter.client.withUser(user, () -> model.chat(question("Private question")));
    List<Map<String, Object>> calls = arbiter.stored("model_call");
    assertEquals(1, calls.size());
    assertRecorded(calls.get(0), user, "Private question", false);
  }

  @Test
  void callsOutsideWithUserOrOutsideTheExperimentAreNotRecorded() throws Exception {
    arbiter(true);
    ChatModel model = chatModel();
    assertEquals(FakeOpenAi.answerTo("anonymous"), model.chat(question("anonymous")).aiMessage().text());
    String outsider = arbiter.userNotEnrolled();
    arbiter.client.withUser(outsider, () -> model.chat(question("not enrolled")));
    assertEquals(2, openai.requests.size());
    assertEquals(List.of(), arbiter.stored("model_call"));
    assertEquals(List.of(), arbiter.stored("exposure"));
    assertEquals(1, arbiter.logged("model call outside withUser(), not recorded"));
  }

  @Test
  void theUserListenerAttributeNamesTheUserOfOneRequest() throws Exception {
    arbiter(true);
    List<String> users = arbiter.enrolledUsers(2);
    ChatModel model = chatModel();
    ChatRequestOptions options = ChatRequestOptions.builder()
        .addListenerAttribute(ArbiterChatModelListener.USER_ATTRIBUTE, users.get(1)).build();
    // The attribute wins over withUser, and needs no withUser at all.
    arbiter.client.withUser(users.get(0), () -> model.chat(question("first"), options));
    model.chat(question("second"), options);
    List<Map<String, Object>> calls = arbiter.stored("model_call");
    assertEquals(2, calls.size());
    for (Map<String, Object> call : calls) assertEquals(users.get(1), call.get("user_id"));
  }

  @Test
  void twoListenersOnOneModelRecordTheirOwnCalls() throws Exception {
    arbiter(true);
    String user = arbiter.enrolledUsers(1).get(0);
    ChatModel model = OpenAiChatModel.builder().baseUrl(openai.baseUrl()).apiKey("sk-test")
        .modelName("gpt-4o-mini").maxRetries(0)
        .listeners(List.of(new ArbiterChatModelListener(arbiter.client, ArbiterFixture.EXPERIMENT),
            new ArbiterChatModelListener(arbiter.client, ArbiterFixture.EXPERIMENT_ID)))
        .build();
    arbiter.client.withUser(user, () -> model.chat(question("twice")));
    List<Map<String, Object>> calls = arbiter.stored("model_call");
    assertEquals(2, calls.size());
    for (Map<String, Object> call : calls) assertRecorded(call, user, "twice", true);
  }
}
