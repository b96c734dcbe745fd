package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The token kinds a model call's result reports: OpenAI's cached and reasoning details (parts of
 * the totals) and Anthropic's cache, counted apart from its input and added into it.
 */
class ModelCallTokensTest {
  @Test
  void readsOpenAiTokenDetails() {
    Map<String, Object> result = Map.of("model", "o3-2025-04-16", "usage", Map.of(
        "prompt_tokens", 3000, "completion_tokens", 800,
        "prompt_tokens_details", Map.of("cached_tokens", 1200),
        "completion_tokens_details", Map.of("reasoning_tokens", 600)));
    ModelCallReader.Measure m = ModelCallReader.read(result, false);
    assertEquals(3000L, m.inputTokens);
    assertEquals(1200L, m.cachedInputTokens);
    assertEquals(800L, m.outputTokens);
    assertEquals(600L, m.reasoningTokens);
  }

  @Test
  void addsAnthropicsCacheIntoTheInput() {
    Map<String, Object> result = Map.of("model", "claude-sonnet-4-20250514", "usage", Map.of(
        "input_tokens", 100, "cache_read_input_tokens", 900, "cache_creation_input_tokens", 50,
        "output_tokens", 40));
    ModelCallReader.Measure m = ModelCallReader.read(result, false);
    assertEquals(1050L, m.inputTokens);
    assertEquals(900L, m.cachedInputTokens);
    assertNull(m.reasoningTokens);
  }
}
