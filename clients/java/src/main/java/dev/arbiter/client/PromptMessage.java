package dev.arbiter.client;

import java.util.Objects;

/** One message of a chat prompt: its role ({@code system}, {@code user}, ...) and content. */
public final class PromptMessage {
  private final String role;
  private final String content;

  public PromptMessage(String role, String content) {
    this.role = role;
    this.content = content;
  }

  public String role() {
    return role;
  }

  public String content() {
    return content;
  }

  @Override
  public boolean equals(Object other) {
    if (!(other instanceof PromptMessage)) return false;
    PromptMessage o = (PromptMessage) other;
    return Objects.equals(role, o.role) && Objects.equals(content, o.content);
  }

  @Override
  public int hashCode() {
    return Objects.hash(role, content);
  }

  @Override
  public String toString() {
    return "PromptMessage{role=" + role + ", content=" + content + "}";
  }
}
