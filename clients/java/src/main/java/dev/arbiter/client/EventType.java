package dev.arbiter.client;

/**
 * The kinds of event {@link Arbiter#track(EventType, java.util.Map)} sends, each with the
 * {@code type} it carries on the wire (docs/wire-format.md).
 */
public enum EventType {
  /** A user saw a variant. {@code assign} and {@code interceptModelCall} send these for you. */
  EXPOSURE("exposure"),
  /** One call of a model: latency, tokens, cost, model, error. */
  MODEL_CALL("model_call"),
  /** An outcome you report: {@code business_metric} and {@code value}. */
  BUSINESS_EVENT("business_event");

  private final String wireName;

  EventType(String wireName) {
    this.wireName = wireName;
  }

  /** The {@code type} field of the event on the wire, e.g. {@code "business_event"}. */
  public String wireName() {
    return wireName;
  }

  /** The type whose wire name this is, or null: the deprecated String form of {@code track}. */
  static EventType fromWireName(String name) {
    for (EventType type : values()) {
      if (type.wireName.equals(name)) return type;
    }
    return null;
  }
}
