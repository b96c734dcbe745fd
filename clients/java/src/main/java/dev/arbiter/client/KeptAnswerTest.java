package dev.arbiter.client;

import java.util.function.Predicate;

/**
 * A test that depends on its field's value alone ({@code $regex}, a version operator), with its
 * answers for attribute strings kept: the strings that regexes and versions read (locales,
 * countries, app versions) repeat from user to user, so a lookup replaces a regex search or a
 * version padding. A table of {@value #SLOTS} immutable entries in pairs (a string may sit in
 * either slot of its pair, so two strings of one pair do not keep replacing each other: with
 * one slot each, 6 of the bench's 91 app versions did, and each of their calls padded its
 * version again), a new string taking the older entry's place: bounded, and read without a lock
 * (an entry is published whole, and a lost write only costs a recomputation).
 */
final class KeptAnswerTest {
  private static final int PAIR_BITS = 9;
  private static final int SLOTS = 2 << PAIR_BITS;

  private static final class Entry {
    final String key;
    final boolean answer;

    Entry(String key, boolean answer) {
      this.key = key;
      this.answer = answer;
    }
  }

  final ConditionField field;
  /** Its answers' id in {@link KeptValue}s, or -1 (see {@link FieldTable#answerId}). */
  private final int answerId;
  private final Predicate<Object> compute;
  private final Entry[] slots = new Entry[SLOTS];

  KeptAnswerTest(ConditionField field, int answerId, Predicate<Object> compute) {
    this.field = field;
    this.answerId = answerId;
    this.compute = compute;
  }

  /** The test of {@link #field}'s value, read from a map or a prepared value's slots. */
  boolean test(Object actual) {
    if (!(actual instanceof String)) return compute.test(actual);
    String text = (String) actual;
    int h = text.hashCode();
    // A multiplicative hash: Java's string hashes of "2.4.0" and "2.4.1" differ in the low
    // bits only, which a mask of them would put in one pair.
    int slot = (h * 0x9E3779B9) >>> (32 - PAIR_BITS) << 1;
    Entry entry = slots[slot];
    if (entry != null && entry.key.equals(text)) return entry.answer;
    Entry other = slots[slot + 1];
    if (other != null && other.key.equals(text)) return other.answer;
    return remember(text, slot, entry);
  }

  /** {@link #test} of a prepared value's slot: a {@link KeptValue}'s kept answer when it has one. */
  boolean testSlot(Object slot) {
    if (!(slot instanceof KeptValue)) return test(slot);
    KeptValue kept = (KeptValue) slot;
    int known = kept.answer(answerId);
    return known >= 0 ? known == 1 : kept.remember(answerId, test(kept.text));
  }

  // The pair's first slot holds the newer entry: the older one moves to the second.
  private boolean remember(String text, int slot, Entry first) {
    boolean answer = compute.test(text);
    if (first != null) slots[slot + 1] = first;
    slots[slot] = new Entry(text, answer);
    return answer;
  }
}
