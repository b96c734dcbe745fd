package dev.arbiter.client;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * With {@link Arbiter.Builder#exposureAttributes(boolean)} on, an exposure carries the attributes
 * its call passed as {@code metadata.attributes} (docs/wire-format.md#exposure-attributes).
 * They are copied as JSON when the exposure is queued, so a later change to the caller's map does
 * not reach the event. Attributes that are not JSON (a NaN, an object of another class, a key
 * that is not a String, a cycle) or that would break the free-form JSON limit of
 * {@code metadata} (32 levels with {@code metadata} itself, 65,536 bytes, no NUL or unpaired
 * surrogate) are left out, and the exposure is sent without them: the server never refuses it
 * for them, and the caller never sees an exception.
 */
final class ExposureAttributes {
  /** The metadata to send, or null with {@link #problem} saying why there is none. */
  final Map<String, Object> metadata;
  final String problem;

  private ExposureAttributes(Map<String, Object> metadata, String problem) {
    this.metadata = metadata;
    this.problem = problem;
  }

  static ExposureAttributes of(Map<String, ?> attributes) {
    Object copy;
    try {
      // A cycle stops at the writer's depth bound; a map changed meanwhile throws here too.
      copy = JsonReader.parse(JsonWriter.write(attributes));
    } catch (RuntimeException e) {
      return new ExposureAttributes(null, "they are not JSON (" + e.getMessage() + ")");
    }
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("attributes", copy);
    String problem = EventValidation.metadataProblem(metadata);
    return problem == null ? new ExposureAttributes(metadata, null)
        : new ExposureAttributes(null, problem);
  }
}
