package dev.arbiter.client;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A version as a string whose plain order (UTF-16 code units) is the version order, GrowthBook's
 * scheme: a leading {@code v} and any {@code +build} suffix are dropped, the rest splits on
 * {@code -} and {@code .}, a three-part version gains a {@code ~} part (so a release sorts after
 * its prereleases: {@code ~} is above every letter), numeric parts are left-padded with spaces to
 * five characters, and the parts are joined by {@code -}. A number reads as its string form;
 * anything that is not a non-empty string or a number reads as "0".
 */
final class VersionString {
  private static final int MAX_CACHED = 1000;
  // Operands and attribute values share a handful of versions: each string is padded once (the
  // cache is bounded against ever new versions, and cleared when full).
  private static final Map<String, String> CACHE = new ConcurrentHashMap<>();

  private VersionString() {}

  /** {@link #padded}, remembered for strings. */
  static String paddedCached(Object input) {
    if (!(input instanceof String)) return padded(input);
    String text = (String) input;
    String cached = CACHE.get(text);
    if (cached != null) return cached;
    String padded = padded(text);
    if (CACHE.size() >= MAX_CACHED) CACHE.clear();
    CACHE.put(text, padded);
    return padded;
  }

  static String padded(Object input) {
    String text = input instanceof Number ? ConditionValues.stringForm(input)
        : input instanceof String ? (String) input : null;
    if (text == null || text.isEmpty()) text = "0";
    int start = text.startsWith("v") ? 1 : 0;
    int build = text.indexOf('+', start);
    int end = build >= 0 ? build : text.length();
    // One pass, no part list: the evaluation path runs this twice per version operator.
    StringBuilder out = new StringBuilder(end - start + 24);
    int parts = 1;
    int part = start;
    for (int i = start; i <= end; i++) {
      if (i < end) {
        char c = text.charAt(i);
        if (c != '-' && c != '.') continue;
      }
      if (parts > 1) out.append('-');
      appendPart(out, text, part, i);
      if (i < end) parts++;
      part = i + 1;
    }
    if (parts == 3) out.append("-~");
    return out.toString();
  }

  /** A part, left-padded with spaces to five characters when it is all ASCII digits. */
  private static void appendPart(StringBuilder out, String text, int from, int to) {
    boolean digits = to > from;
    for (int i = from; i < to && digits; i++) {
      char c = text.charAt(i);
      digits = c >= '0' && c <= '9';
    }
    if (digits) {
      for (int i = to - from; i < 5; i++) out.append(' ');
    }
    out.append(text, from, to);
  }
}
