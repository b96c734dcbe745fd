package dev.arbiter.client;

import java.util.Objects;

/** What {@link Arbiter#getPrompt} answers: the variant, its prompt, and whether that is the caller's default. */
public final class PromptResult {
  private final String variant;
  private final String prompt;
  private final boolean fallback;

  PromptResult(String variant, String prompt, boolean fallback) {
    this.variant = variant;
    this.prompt = prompt;
    this.fallback = fallback;
  }

  /** The assigned variant key, or null (not enrolled, unknown experiment, or no config yet). */
  public String variant() {
    return variant;
  }

  /** The variant's prompt, or the caller's default when {@link #fallback()} is true. */
  public String prompt() {
    return prompt;
  }

  /** True when {@link #prompt()} is the caller's default. */
  public boolean fallback() {
    return fallback;
  }

  @Override
  public boolean equals(Object other) {
    if (!(other instanceof PromptResult)) return false;
    PromptResult o = (PromptResult) other;
    return fallback == o.fallback && Objects.equals(variant, o.variant)
        && Objects.equals(prompt, o.prompt);
  }

  @Override
  public int hashCode() {
    return Objects.hash(variant, prompt, fallback);
  }

  @Override
  public String toString() {
    return "PromptResult{variant=" + variant + ", prompt=" + prompt + ", fallback=" + fallback + "}";
  }
}
