package dev.arbiter.client;

import java.util.AbstractMap;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

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
 * <p>A read-only {@code Map} of the attributes it was made from, immutable and safe to share
 * between threads. {@link #of} copies the top-level map, so a later change to it is not seen;
 * nested maps and lists are not copied: do not change them after preparing. It never throws,
 * and reads no field until the first call.
 *
 * <pre>{@code
 * PreparedAttributes user = PreparedAttributes.of(Map.of("plan", "pro", "locale", "en-US"));
 * String variant = arbiter.assign("checkout-prompt", userId, user);
 * PromptResult prompt = arbiter.getPrompt("support-prompt", userId, "You are helpful.", user);
 * }</pre>
 */
public final class PreparedAttributes extends AbstractMap<String, Object> {
  private static final PreparedAttributes NONE = new PreparedAttributes(Map.of());

  private final Map<String, Object> copy;
  /**
   * The last resolution, or null before the first: its {@link FieldTable} in slot 0, then the
   * table's fields as {@link FieldTable#resolve} read them from the copy. Held here, not behind
   * another object, because a targeted call over many users pays a cache miss per object it
   * passes through (bench/java-client/RESULTS.md). Volatile, so a thread that sees the array
   * sees its slots; two threads that miss at once both resolve, and either array serves.
   */
  private volatile Object[] resolved;

  private PreparedAttributes(Map<String, Object> copy) {
    this.copy = copy;
  }

  /**
   * The prepared form of {@code attributes} (String, Number, Boolean, null, List and Map values,
   * as the map-taking methods read them): a copy of its entries, in its order. A sorted map
   * keeps its comparator, so a case-insensitive one still finds {@code "Plan"} as
   * {@code "plan"}; a map that cannot be copied (it throws while iterated) is kept as it is, so
   * every read meets it as the plain call would.
   *
   * @param attributes the user's attributes; null reads as none
   */
  @SuppressWarnings("unchecked")
  public static PreparedAttributes of(Map<String, ?> attributes) {
    if (attributes == null) return NONE;
    // Already immutable: a copy would answer the same.
    if (attributes instanceof PreparedAttributes) return (PreparedAttributes) attributes;
    Map<String, Object> copy;
    try {
      copy = attributes instanceof SortedMap
          ? new TreeMap<>((SortedMap<String, Object>) attributes)
          : new LinkedHashMap<>(attributes);
    } catch (RuntimeException e) {
      copy = (Map<String, Object>) attributes;
    }
    return new PreparedAttributes(copy);
  }

  /**
   * The attribute map the client reads for {@code prepared}: null for none (a null value or
   * {@code of(null)}), so that such a call takes the same path as one given a null map.
   */
  static Map<String, ?> mapOf(PreparedAttributes prepared) {
    return prepared == null || prepared == NONE ? null : prepared;
  }

  /**
   * {@code table}'s fields resolved from the copy, {@code table} in slot 0: the kept ones when
   * the last resolution was for this table, else read now and kept (a new config version
   * replaces the old one's). Small, so that the JIT inlines it into the compiled condition.
   */
  Object[] resolvedFor(FieldTable table) {
    Object[] last = resolved;
    return last != null && last[0] == table ? last : resolve(table);
  }

  private Object[] resolve(FieldTable table) {
    Object[] values = table.resolve(copy);
    resolved = values;
    return values;
  }

  @Override
  public Object get(Object key) {
    return copy.get(key);
  }

  @Override
  public boolean containsKey(Object key) {
    return copy.containsKey(key);
  }

  @Override
  public int size() {
    return copy.size();
  }

  @Override
  public Set<Map.Entry<String, Object>> entrySet() {
    return Collections.unmodifiableMap(copy).entrySet();
  }
}
