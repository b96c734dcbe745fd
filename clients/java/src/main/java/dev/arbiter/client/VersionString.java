package dev.arbiter.client;

import java.util.ArrayList;
import java.util.List;

/**
 * A version as a string whose plain order (UTF-16 code units) is the version order, GrowthBook's
 * scheme: a leading {@code v} and any {@code +build} suffix are dropped, the rest splits on
 * {@code -} and {@code .}, a three-part version gains a {@code ~} part (so a release sorts after
 * its prereleases: {@code ~} is above every letter), numeric parts are left-padded with spaces to
 * five characters, and the parts are joined by {@code -}. A number reads as its string form;
 * anything that is not a non-empty string or a number reads as "0".
 */
final class VersionString {
  private VersionString() {}

  static String padded(Object input) {
    String text = input instanceof Number ? ConditionValues.stringForm(input)
        : input instanceof String ? (String) input : null;
    if (text == null || text.isEmpty()) text = "0";
    if (text.startsWith("v")) text = text.substring(1);
    int build = text.indexOf('+');
    if (build >= 0) text = text.substring(0, build);
    List<String> parts = split(text);
    if (parts.size() == 3) parts.add("~");
    StringBuilder out = new StringBuilder();
    for (String part : parts) {
      if (out.length() > 0) out.append('-');
      if (isDigits(part)) {
        for (int i = part.length(); i < 5; i++) out.append(' ');
      }
      out.append(part);
    }
    return out.toString();
  }

  /** Splits on every '-' and '.', keeping empty parts (as JavaScript's split does). */
  private static List<String> split(String text) {
    List<String> parts = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '-' || c == '.') {
        parts.add(text.substring(start, i));
        start = i + 1;
      }
    }
    parts.add(text.substring(start));
    return parts;
  }

  private static boolean isDigits(String part) {
    if (part.isEmpty()) return false;
    for (int i = 0; i < part.length(); i++) {
      char c = part.charAt(i);
      if (c < '0' || c > '9') return false;
    }
    return true;
  }
}
