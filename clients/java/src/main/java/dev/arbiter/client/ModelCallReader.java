package dev.arbiter.client;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.Optional;

/**
 * Reads what a model call's result exposes: model, token counts and (when allowed) text. Works
 * on the provider SDKs' response types without depending on them, through accessor names they
 * share: {@code model()}, {@code usage()} with {@code promptTokens()}/{@code inputTokens()} and
 * {@code completionTokens()}/{@code outputTokens()} (openai-java, anthropic-sdk-java), the
 * {@code get}-prefixed forms, {@code Optional} wrappers, and maps with the snake_case keys of
 * the providers' JSON. Anything else is simply not recorded.
 */
final class ModelCallReader {
  /** What was found; null fields were not exposed. */
  static final class Measure {
    String model;
    Long inputTokens;
    Long outputTokens;
    /** Of the input, the tokens read from the provider's cache. */
    Long cachedInputTokens;
    /** Of the output, the tokens the model spent reasoning. */
    Long reasoningTokens;
    /** What the call cost in US dollars, where the provider reports it (OpenRouter's usage.cost). */
    Double cost;
    String prompt;
    String response;
  }

  private ModelCallReader() {}

  static Measure read(Object result, boolean withText) {
    Measure m = new Measure();
    if (result == null) return m;
    try {
      Object model = member(result, "model");
      if (model != null) m.model = textOf(model);
      Object usage = member(result, "usage");
      Object counts = usage != null ? usage : result;
      m.inputTokens = count(first(counts, "input_tokens", "inputTokens", "prompt_tokens", "promptTokens"));
      m.outputTokens = count(first(counts, "output_tokens", "outputTokens", "completion_tokens", "completionTokens"));
      readTokenParts(counts, m);
      m.cost = amount(first(counts, "cost", "cost_usd", "costUsd"));
      if (m.cost == null && usage != null) m.cost = amount(first(result, "cost", "cost_usd", "costUsd"));
      if (withText) {
        Object prompt = member(result, "prompt");
        Object response = first(result, "response", "output_text", "outputText", "text");
        if (prompt instanceof String) m.prompt = capped((String) prompt);
        if (response instanceof String) m.response = capped((String) response);
      }
    } catch (RuntimeException unreadable) {
      // A result we cannot read is recorded with latency only.
    }
    return m;
  }

  /**
   * The cached and reasoning parts: OpenAI's token details (counted in the totals), and
   * Anthropic's cache read and written, which its usage counts apart from the input and the
   * wire counts in it, so they are added.
   */
  private static void readTokenParts(Object counts, Measure m) {
    Object in = first(counts, "prompt_tokens_details", "promptTokensDetails", "input_tokens_details",
        "inputTokensDetails");
    Object out = first(counts, "completion_tokens_details", "completionTokensDetails",
        "output_tokens_details", "outputTokensDetails");
    if (in != null) m.cachedInputTokens = count(first(in, "cached_tokens", "cachedTokens"));
    if (out != null) m.reasoningTokens = count(first(out, "reasoning_tokens", "reasoningTokens"));
    Long read = count(first(counts, "cache_read_input_tokens", "cacheReadInputTokens"));
    Long written = count(first(counts, "cache_creation_input_tokens", "cacheCreationInputTokens"));
    if (read != null && m.inputTokens != null) {
      m.inputTokens += read + (written == null ? 0 : written);
      m.cachedInputTokens = read;
    }
  }

  private static Object first(Object target, String... names) {
    for (String name : names) {
      Object value = member(target, name);
      if (value != null) return value;
    }
    return null;
  }

  /** {@code target.name()}, {@code target.getName()} or {@code map.get(name)}, Optionals unwrapped. */
  static Object member(Object target, String name) {
    Object value = null;
    if (target instanceof Map) {
      value = ((Map<?, ?>) target).get(name);
    } else {
      value = invoke(target, name);
      if (value == null) {
        value = invoke(target, "get" + Character.toUpperCase(name.charAt(0)) + name.substring(1));
      }
    }
    if (value instanceof Optional) value = ((Optional<?>) value).orElse(null);
    return value;
  }

  private static Object invoke(Object target, String method) {
    if (method.indexOf('_') >= 0) return null;
    try {
      Method m = target.getClass().getMethod(method);
      if (m.getReturnType() == void.class || Modifier.isStatic(m.getModifiers())) return null;
      if (!m.canAccess(target) && !m.trySetAccessible()) return null;
      return m.invoke(target);
    } catch (ReflectiveOperationException | RuntimeException absent) {
      return null;
    }
  }

  /** Model names are strings, or small value types (anthropic's {@code Model}) with {@code asString()}. */
  private static String textOf(Object model) {
    if (model instanceof String) return (String) model;
    Object s = invoke(model, "asString");
    if (s instanceof Optional) s = ((Optional<?>) s).orElse(null);
    return s instanceof String ? (String) s : model.toString();
  }

  private static Long count(Object value) {
    if (!(value instanceof Number)) return null;
    double d = ((Number) value).doubleValue();
    return Double.isFinite(d) && d >= 0 ? ((Number) value).longValue() : null;
  }

  private static Double amount(Object value) {
    if (!(value instanceof Number)) return null;
    double d = ((Number) value).doubleValue();
    return Double.isFinite(d) && d >= 0 ? d : null;
  }

  private static String capped(String text) {
    return cut(text, ArbiterDefaults.MAX_MODEL_TEXT_LENGTH, "");
  }

  /** At most {@code max} characters, never ending between the two halves of a surrogate pair. */
  static String cut(String text, int max, String ellipsis) {
    if (text.length() <= max) return text;
    int end = max - ellipsis.length();
    if (end > 0 && Character.isHighSurrogate(text.charAt(end - 1))) end--;
    return text.substring(0, end) + ellipsis;
  }

  /** Error class and message, cut to MAX_ERROR_LENGTH characters. */
  static String describeError(Throwable err) {
    String text = err.getClass().getSimpleName()
        + (err.getMessage() == null ? "" : ": " + err.getMessage());
    return cut(text, ArbiterDefaults.MAX_ERROR_LENGTH, "…");
  }
}
