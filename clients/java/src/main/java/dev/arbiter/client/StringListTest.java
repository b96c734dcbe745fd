package dev.arbiter.client;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code $in} or {@code $nin} of a list of strings only, as the evaluator decides it: a string
 * is in when it equals an item; an array is in when one of its elements is.
 */
final class StringListTest {
  /** Lists of at most this many strings are compared one by one: faster than a hash set. */
  private static final int MAX_LISTED = 8;

  final ConditionField field;
  /** Its answers' id in {@link KeptValue}s, or -1 (see {@link FieldTable#answerId}). */
  private final int answerId;
  /** True for {@code $in}, false for {@code $nin}. */
  private final boolean in;
  /** A short list's strings (interned) and their hashes, or null for a set of many. */
  private final String[] strings;
  private final int[] hashes;
  private final Set<String> set;

  private StringListTest(ConditionField field, int answerId, boolean in, String[] strings) {
    this.field = field;
    this.answerId = answerId;
    this.in = in;
    boolean few = strings.length <= MAX_LISTED;
    this.strings = few ? strings : null;
    this.set = few ? null : new HashSet<>(Arrays.asList(strings));
    this.hashes = new int[few ? strings.length : 0];
    for (int i = 0; i < hashes.length; i++) hashes[i] = strings[i].hashCode();
  }

  /**
   * The test, or null when an item is not a string (the evaluator's then); {@code answerId} as
   * {@link FieldTable#answerId} gave it, or -1 outside a config's table.
   */
  static StringListTest of(ConditionField field, int answerId, boolean in, List<?> items) {
    String[] strings = new String[items.size()];
    for (int i = 0; i < strings.length; i++) {
      if (!(items.get(i) instanceof String)) return null;
      strings[i] = ((String) items.get(i)).intern();
    }
    return new StringListTest(field, answerId, in, strings);
  }

  /** The test of {@link #field}'s value, read from a map or a prepared value's slots. */
  boolean test(Object actual) {
    boolean found = actual instanceof String ? contains((String) actual) : containsElement(actual);
    return found == in;
  }

  /** {@link #test} of a prepared value's slot: a {@link KeptValue}'s kept answer when it has one. */
  boolean testSlot(Object slot) {
    if (!(slot instanceof KeptValue)) return test(slot);
    KeptValue kept = (KeptValue) slot;
    int known = kept.answer(answerId);
    return known >= 0 ? known == 1 : kept.remember(answerId, test(kept.text));
  }

  private boolean containsElement(Object actual) {
    if (actual instanceof List) {
      for (Object element : (List<?>) actual) {
        Object value = ConditionValues.json(element);
        if (value instanceof String && contains((String) value)) return true;
      }
    }
    return false;
  }

  private boolean contains(String value) {
    if (strings == null) return set.contains(value);
    // Hashes first: a string's hash is kept in it, so a miss costs no comparison of contents.
    int hash = value.hashCode();
    for (int i = 0; i < strings.length; i++) {
      if (hashes[i] == hash && strings[i].equals(value)) return true;
    }
    return false;
  }
}
