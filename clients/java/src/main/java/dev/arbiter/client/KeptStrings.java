package dev.arbiter.client;

/**
 * One {@link KeptValue} for each short string a {@link FieldTable} resolves: users' targeting
 * values repeat (plans, locales, countries, app versions), so prepared values that share one
 * instance share its cache lines and the answers kept in it, rather than reading a per-user
 * copy's bytes (across 16,384 users, those reads were cache misses). Equal strings are
 * interchangeable to every test, so answers cannot change.
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

  private final KeptValue[] slots = new KeptValue[SLOTS];

  /**
   * What a prepared value's slot holds for {@code value}: the kept {@link KeptValue} of a short
   * string (made and kept now if there is none), anything else as it is.
   */
  Object kept(Object value) {
    if (!(value instanceof String)) return value;
    String text = (String) value;
    if (text.length() > MAX_LENGTH) return text;
    // Multiplicative, as in KeptAnswerTest: version strings differ in their hash's low bits.
    int slot = (text.hashCode() * 0x9E3779B9) >>> (32 - BITS);
    KeptValue kept = slots[slot];
    if (kept != null && text.equals(kept.text)) return kept;
    kept = new KeptValue(text);
    slots[slot] = kept;
    return kept;
  }
}
