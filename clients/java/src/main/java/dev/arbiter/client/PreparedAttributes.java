package dev.arbiter.client;

import java.util.Map;

/**
 * A user's attributes prepared once for many calls: build one per request (as LaunchDarkly's
 * {@code LDContext} or Statsig's {@code StatsigUser} is built) and pass it to {@code assign},
 * {@code getPrompt}, {@code getVariables}, {@code interceptModelCall} and {@code withUser} in
 * place of the map. Every answer, exposure and targeting tally is the one the map itself would
 * give, {@code metadata.attributes} included.
 *
 * <p>Faster when experiments have targeting: the first call under a config version reads every
 * field the config's conditions name from the attributes once; later calls, in any experiment
 * of that version, read those values instead of the map. A new config version reads them again.
 *
 * <p>Immutable and safe to share between threads. {@link #of} copies the top-level map, so a
 * later change to it is not seen; nested maps and lists are not copied: do not change them after
 * preparing. It never throws, and reads no field until the first call.
 *
 * <pre>{@code
 * PreparedAttributes user = PreparedAttributes.of(Map.of("plan", "pro", "locale", "en-US"));
 * String variant = arbiter.assign("checkout-prompt", userId, user);
 * PromptResult prompt = arbiter.getPrompt("support-prompt", userId, "You are helpful.", user);
 * }</pre>
 */
public final class PreparedAttributes {
  private static final PreparedAttributes NONE = new PreparedAttributes(null);

  /** The copy the client reads, or null: no attributes. */
  private final PreparedMap map;

  private PreparedAttributes(PreparedMap map) {
    this.map = map;
  }

  /**
   * The prepared form of {@code attributes} (String, Number, Boolean, null, List and Map values,
   * as the map-taking methods read them).
   *
   * @param attributes the user's attributes; null reads as none
   */
  public static PreparedAttributes of(Map<String, ?> attributes) {
    return attributes == null ? NONE : new PreparedAttributes(PreparedMap.of(attributes));
  }

  /** The attribute map the client reads for {@code prepared}: null for none (or a null value). */
  static Map<String, ?> mapOf(PreparedAttributes prepared) {
    return prepared == null ? null : prepared.map;
  }
}
