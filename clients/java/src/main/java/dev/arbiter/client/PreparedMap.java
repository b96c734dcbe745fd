package dev.arbiter.client;

import java.util.AbstractMap;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What a {@link PreparedAttributes} holds: a shallow copy of the caller's attributes, read-only,
 * and the fields of the last config version's {@link FieldTable} resolved from it. It travels
 * inside the client as the attribute map of the call, so a {@code withUser} scope, a recorded
 * model call and an exposure's {@code metadata.attributes} see the same map as for the plain
 * call; only {@link CompiledExperiment#admits} tells it apart, to read resolved fields.
 *
 * <p>Thread-safe without a lock: the resolution is one reference to an immutable holder whose
 * fields are final, so a thread sees a whole resolution or an older one; two threads that miss
 * at once both resolve, and one result replaces the other (the same values).
 */
final class PreparedMap extends AbstractMap<String, Object> {
  /** The fields of {@code table} resolved from the copy. */
  private static final class Resolution {
    final FieldTable table;
    final Object[] values;

    Resolution(FieldTable table, Object[] values) {
      this.table = table;
      this.values = values;
    }
  }

  private final Map<String, Object> copy;
  /** The last resolution, or null before the first; a plain field (see the class comment). */
  private Resolution resolution;

  private PreparedMap(Map<String, Object> copy) {
    this.copy = copy;
  }

  /**
   * A copy of {@code attributes}'s entries, in its order; a sorted map keeps its comparator, so
   * a case-insensitive one still finds {@code "Plan"} as {@code "plan"}. A map that cannot be
   * copied (it throws while iterated) is kept as it is: every read then meets it as the plain
   * call would.
   */
  @SuppressWarnings("unchecked")
  static PreparedMap of(Map<String, ?> attributes) {
    Map<String, Object> copy;
    try {
      copy = attributes instanceof SortedMap
          ? new TreeMap<>((SortedMap<String, Object>) attributes)
          : new LinkedHashMap<>(attributes);
    } catch (RuntimeException e) {
      copy = (Map<String, Object>) attributes;
    }
    return new PreparedMap(copy);
  }

  /**
   * The fields of {@code table} as {@link FieldTable#resolve} reads them from the copy: the
   * kept ones when the last resolution was for this table, else read now and kept in their
   * place (a new config version replaces the old one's).
   */
  Object[] valuesFor(FieldTable table) {
    Resolution last = resolution;
    if (last != null && last.table == table) return last.values;
    Object[] values = table.resolve(copy);
    resolution = new Resolution(table, values);
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
