package dev.arbiter.client;

/**
 * A short attribute string as a {@link FieldTable} keeps it ({@link KeptStrings}), with the
 * answers its config's value-only tests gave for it: a {@code $in} of strings, a regex, a version
 * comparison depend on the string alone, and users repeat their plans, locales, countries and
 * app versions, so a prepared value's slot answers such a test with one read instead of a hash,
 * a lookup and a comparison per call. Answers are kept per distinct string and config
 * version, never per user: the same thing {@link KeptAnswerTest} keeps for the map path.
 *
 * <p>Two bits per test id in one long (known, answer), so a reader sees a test's two bits
 * together. Written without a lock: an answer never changes, and an update lost to a race only
 * costs computing that answer again.
 */
final class KeptValue {
  /** Test ids below this keep their answers here; {@link FieldTable#answerId} gives -1 past it. */
  static final int MAX_TESTS = 32;

  final String text;
  private volatile long answers;

  KeptValue(String text) {
    this.text = text;
  }

  /** Test {@code id}'s kept answer: 1 true, 0 false, -1 not known (or no id). */
  int answer(int id) {
    if (id < 0) return -1;
    long bits = answers >>> (id << 1);
    return (bits & 1) == 0 ? -1 : (int) (bits >>> 1) & 1;
  }

  /** Keeps test {@code id}'s answer (none for -1); returns it. */
  boolean remember(int id, boolean answer) {
    if (id >= 0) answers |= (answer ? 3L : 1L) << (id << 1);
    return answer;
  }

  @Override
  public String toString() {
    return text;
  }
}
