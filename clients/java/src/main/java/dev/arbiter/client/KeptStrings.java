package dev.arbiter.client;

/**
 * One instance of each short string a {@link FieldTable} resolves: users' targeting values
 * repeat (plans, locales, countries, app versions), so prepared values that share one instance
 * share its cache lines, and a test comparing it with a kept answer's key finds the same object
 * rather than reading a per-user copy's bytes (issue 29: across 16,384 users, those reads were
 * cache misses). Equal strings are interchangeable to every test, so answers cannot change.
 *
 * <p>A table of {@value #SLOTS} slots, a new string taking its slot's place: bounded, and read
 * and written without a lock (a string is safe to publish through a race, and a lost write only
 * leaves another user's equal string unshared). Long strings are left as they are: sharing
 * them saves nothing, and the table would keep them alive after their request.
 */
final class KeptStrings {
  private static final int BITS = 10;
  private static final int SLOTS = 1 << BITS;
  private static final int MAX_LENGTH = 64;

  private final String[] slots = new String[SLOTS];

  /** The kept instance equal to {@code value}, or {@code value} itself, now kept. */
  Object shared(Object value) {
    if (!(value instanceof String)) return value;
    String text = (String) value;
    if (text.length() > MAX_LENGTH) return text;
    // Multiplicative, as in KeptAnswerTest: version strings differ in their hash's low bits.
    int slot = (text.hashCode() * 0x9E3779B9) >>> (32 - BITS);
    String kept = slots[slot];
    if (text.equals(kept)) return kept;
    slots[slot] = text;
    return text;
  }
}
