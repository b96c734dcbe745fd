package dev.arbiter.client;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/** A prompt as {@link Prompts#get} resolved it, rendered with the caller's variables. */
public final class ResolvedPrompt {
  /** Where the answer came from. */
  public enum Source {
    /** The user's variant's version, in the running experiment that covers the prompt. */
    EXPERIMENT,
    /** The version under the label asked for ({@code production} unless named). */
    LABEL,
    /** The caller's default. */
    DEFAULT
  }

  private final String name;
  private final Source source;
  private final Integer version;
  private final String experiment;
  private final String variant;
  private final String text;
  private final List<PromptMessage> messages;
  private final List<String> variables;
  private final Map<String, Object> modelSettings;

  ResolvedPrompt(String name, Source source, Integer version, String experiment, String variant,
      String text, List<PromptMessage> messages, List<String> variables,
      Map<String, Object> modelSettings) {
    this.name = name;
    this.source = source;
    this.version = version;
    this.experiment = experiment;
    this.variant = variant;
    this.text = text;
    this.messages = messages;
    this.variables = variables;
    this.modelSettings = modelSettings;
  }

  /** The prompt's name, as asked for. */
  public String name() {
    return name;
  }

  public Source source() {
    return source;
  }

  /** The version served; null for the default. */
  public Integer version() {
    return version;
  }

  /** The covering experiment's name when {@link #source()} is EXPERIMENT, else null. */
  public String experiment() {
    return experiment;
  }

  /** The user's variant when {@link #source()} is EXPERIMENT, else null. */
  public String variant() {
    return variant;
  }

  /** The rendered text of a text version (or of a text default); null for a chat. */
  public String text() {
    return text;
  }

  /** The rendered messages of a chat version (or of a chat default); null for a text. */
  public List<PromptMessage> messages() {
    return messages;
  }

  /** The version's declared variables (empty for the default). */
  public List<String> variables() {
    return variables;
  }

  /** The version's model settings as written (empty when none), values as JSON holds them. */
  public Map<String, Object> modelSettings() {
    return modelSettings;
  }

  @Override
  public boolean equals(Object other) {
    if (!(other instanceof ResolvedPrompt)) return false;
    ResolvedPrompt o = (ResolvedPrompt) other;
    return Objects.equals(name, o.name) && source == o.source
        && Objects.equals(version, o.version) && Objects.equals(experiment, o.experiment)
        && Objects.equals(variant, o.variant) && Objects.equals(text, o.text)
        && Objects.equals(messages, o.messages) && Objects.equals(variables, o.variables)
        && Objects.equals(modelSettings, o.modelSettings);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, source, version, experiment, variant, text, messages);
  }

  @Override
  public String toString() {
    return "ResolvedPrompt{name=" + name + ", source=" + source + ", version=" + version
        + ", experiment=" + experiment + ", variant=" + variant + ", text=" + text
        + ", messages=" + messages + "}";
  }
}
