package dev.arbiter.client.langchain4j;

import dev.arbiter.client.Arbiter;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.listener.ChatModelErrorContext;
import dev.langchain4j.model.chat.listener.ChatModelListener;
import dev.langchain4j.model.chat.listener.ChatModelRequestContext;
import dev.langchain4j.model.chat.listener.ChatModelResponseContext;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.ChatResponseMetadata;
import dev.langchain4j.model.output.TokenUsage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * A LangChain4j {@link ChatModelListener} that records each chat-model call (streaming
 * included) as the other Arbiter clients' {@code wrap} does: an {@code exposure} when the request
 * starts and a {@code model_call} when the answer is complete, with its latency, input and output
 * tokens, model, error, and (unless the client's {@code recordModelText} is off) the prompt and
 * response text.
 *
 * <pre>{@code
 * ChatModel model = OpenAiChatModel.builder().apiKey(key).modelName("gpt-4o-mini")
 *     .listeners(List.of(new ArbiterChatModelListener(arbiter, "support-prompt"))).build();
 * String answer = arbiter.withUser(user.id(), () -> model.chat("Where is my order?"));
 * }</pre>
 *
 * <p>The user is the one of the {@link Arbiter#withUser} scope on the thread that sends the
 * request (where LangChain4j calls {@code onRequest}, for the streaming models too), or the
 * request's listener attribute {@value #USER_ATTRIBUTE} when there is one. A call without either,
 * or for a user not enrolled, runs unrecorded. Nothing this listener does reaches the application:
 * LangChain4j logs and ignores a listener's exceptions, and this one throws none.
 */
public final class ArbiterChatModelListener implements ChatModelListener {
  /**
   * The listener attribute (LangChain4j's {@code ChatRequestOptions.listenerAttributes}) that
   * names the user of one request; it wins over {@link Arbiter#withUser}.
   */
  public static final String USER_ATTRIBUTE = "arbiter.user_id";

  private final Arbiter client;
  private final String experiment;
  /**
   * This listener's entry in a request's attributes: its own object, so that two listeners on
   * one model (two experiments) keep their calls apart.
   */
  private final Object attributeKey = new Object();

  /**
   * @param client the application's Arbiter client
   * @param experiment the experiment (name or id) the model's calls belong to
   */
  public ArbiterChatModelListener(Arbiter client, String experiment) {
    this.client = Objects.requireNonNull(client, "client");
    this.experiment = Objects.requireNonNull(experiment, "experiment");
  }

  @Override
  public void onRequest(ChatModelRequestContext context) {
    try {
      // The call is recorded through the client's own recorder: the returned future is what it
      // times, and its value (a map with the providers' JSON keys) is what it reads.
      CompletableFuture<Map<String, Object>> outcome = new CompletableFuture<>();
      Function<String, CompletableFuture<Map<String, Object>>> call = variant -> outcome;
      Object user = context.attributes().get(USER_ATTRIBUTE);
      if (user instanceof String) {
        client.interceptModelCall(experiment, (String) user, call);
      } else {
        client.interceptModelCall(experiment, call);
      }
      context.attributes().put(attributeKey, outcome);
    } catch (RuntimeException ignored) {
      // Recording never changes the model call.
    }
  }

  @Override
  public void onResponse(ChatModelResponseContext context) {
    CompletableFuture<Map<String, Object>> outcome = pending(context.attributes());
    if (outcome == null) return;
    try {
      outcome.complete(measure(context.chatRequest(), context.chatResponse()));
    } catch (RuntimeException unreadable) {
      outcome.complete(Map.of());
    }
  }

  @Override
  public void onError(ChatModelErrorContext context) {
    CompletableFuture<Map<String, Object>> outcome = pending(context.attributes());
    if (outcome != null) outcome.completeExceptionally(context.error());
  }

  @SuppressWarnings("unchecked")
  private CompletableFuture<Map<String, Object>> pending(Map<Object, Object> attributes) {
    Object outcome = attributes.remove(attributeKey);
    return outcome instanceof CompletableFuture
        ? (CompletableFuture<Map<String, Object>>) outcome : null;
  }

  /** What the client reads from a model call's result, under the OpenAI JSON's names. */
  static Map<String, Object> measure(ChatRequest request, ChatResponse response) {
    Map<String, Object> out = new HashMap<>();
    ChatResponseMetadata metadata = response.metadata();
    String model = metadata == null ? null : metadata.modelName();
    if (model == null || model.isEmpty()) model = request.modelName();
    if (model != null && !model.isEmpty()) out.put("model", model);
    TokenUsage usage = metadata == null ? null : metadata.tokenUsage();
    if (usage != null) {
      Map<String, Object> counts = new HashMap<>();
      if (usage.inputTokenCount() != null) counts.put("input_tokens", usage.inputTokenCount());
      if (usage.outputTokenCount() != null) counts.put("output_tokens", usage.outputTokenCount());
      Object cached = detail(usage, "inputTokensDetails", "cachedTokens");
      if (cached != null) counts.put("input_tokens_details", Map.of("cached_tokens", cached));
      Object reasoning = detail(usage, "outputTokensDetails", "reasoningTokens");
      if (reasoning != null) counts.put("output_tokens_details", Map.of("reasoning_tokens", reasoning));
      out.put("usage", counts);
    }
    String prompt = conversation(request.messages());
    if (!prompt.isEmpty()) out.put("prompt", prompt);
    AiMessage answer = response.aiMessage();
    if (answer != null && answer.text() != null && !answer.text().isEmpty()) {
      out.put("response", answer.text());
    }
    return out;
  }

  /**
   * {@code usage.part().count()} where the provider's TokenUsage has it, else null: OpenAI's
   * ({@code OpenAiTokenUsage}) counts cached input and reasoning output among its totals, as the
   * wire does. Read by name, since the listener depends on langchain4j-core alone and the
   * provider modules are the application's.
   */
  static Object detail(TokenUsage usage, String part, String count) {
    try {
      Object details = usage.getClass().getMethod(part).invoke(usage);
      if (details == null) return null;
      Object value = details.getClass().getMethod(count).invoke(details);
      return value instanceof Number ? ((Number) value).longValue() : null;
    } catch (ReflectiveOperationException | RuntimeException absent) {
      return null;
    }
  }

  /**
   * {@code role: text} lines of the messages, with the roles of OpenAI's chat messages, as the
   * TypeScript and Python clients write the prompt of a chat call. Images, audio and tool calls
   * without text are left out.
   */
  static String conversation(List<ChatMessage> messages) {
    if (messages == null) return "";
    List<String> lines = new ArrayList<>();
    for (ChatMessage message : messages) {
      String text = textOf(message);
      if (text != null && !text.isEmpty()) lines.add(roleOf(message) + ": " + text);
    }
    return String.join("\n", lines);
  }

  private static String roleOf(ChatMessage message) {
    if (message instanceof SystemMessage) return "system";
    if (message instanceof AiMessage) return "assistant";
    if (message instanceof ToolExecutionResultMessage) return "tool";
    return "user";
  }

  private static String textOf(ChatMessage message) {
    if (message instanceof SystemMessage) return ((SystemMessage) message).text();
    if (message instanceof AiMessage) return ((AiMessage) message).text();
    if (message instanceof ToolExecutionResultMessage) {
      return ((ToolExecutionResultMessage) message).text();
    }
    if (message instanceof UserMessage) {
      List<String> parts = new ArrayList<>();
      for (Content content : ((UserMessage) message).contents()) {
        if (content instanceof TextContent) parts.add(((TextContent) content).text());
      }
      return String.join("\n", parts);
    }
    return null;
  }
}
