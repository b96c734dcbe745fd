package dev.arbiter.client;

import java.util.ArrayDeque;
import java.util.BitSet;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

/**
 * A JavaScript RegExp pattern (no flags but {@code i}, the dialect the server validates
 * conditions in) rewritten for java.util.regex, where the two read the same text differently:
 * <ul>
 *   <li>{@code $} is the end of the text only (Java's also matches before a final line break);
 *   <li>{@code .} excludes just \n, \r, U+2028 and U+2029 (Java's also U+0085);
 *   <li>{@code \s} is JavaScript's whitespace set, {@code \b} an ASCII word boundary (Java 17's
 *       is Unicode), {@code \v} a vertical tab, {@code \0} NUL, {@code \cx} x mod 32;
 *   <li>{@code [^]} is any character and {@code []} none; '[', '&amp;' in a class, and '-' beside
 *       {@code \d}, {@code \w} or {@code \s} in a class, are plain;
 *   <li>a '{' or '}' that is not a quantifier, and an escaped character JavaScript gives no
 *       meaning ({@code \A}, {@code \Q}, {@code \p}, {@code \z}, ...), are the plain character;
 *       {@code \8}, and {@code \12} without 12 groups, are legacy octal or plain digits;
 *   <li>a backreference to a group that has not matched matches the empty string;
 *   <li>what JavaScript refuses (a quantifier on a quantifier or on nothing, Java's {@code (?i)}
 *       or {@code (?>...)}, a duplicate group name) is no pattern.
 * </ul>
 * Left as Java reads them: case folding that maps a non-ASCII letter to ASCII (Java's {@code k}
 * matches KELVIN SIGN and {@code s} LONG S case-insensitively, JavaScript's do not), astral
 * characters (one code point to Java, two code units to JavaScript), and a group's capture
 * kept from an earlier iteration of a loop (JavaScript clears it).
 */
final class JsPattern {
  private static final String JS_SPACE =
      "\\t\\n\\x0B\\f\\r \\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF";
  private static final String WORD = "[A-Za-z0-9_]";
  // What a ')' closes: a capturing group's number, or one of these.
  private static final int NON_CAPTURING = 0;
  private static final int LOOKAHEAD = -1;
  private static final int LOOKBEHIND = -2;

  private final String js;
  private final StringBuilder out;
  private final Map<String, Integer> names = new HashMap<>();
  private final BitSet closed = new BitSet();
  private final Deque<Integer> open = new ArrayDeque<>();
  private int groupCount;
  private int opened;
  private int i;

  private JsPattern(String js) {
    this.js = js;
    this.out = new StringBuilder(js.length() + 16);
  }

  /** The Java form of a JavaScript pattern, or null when JavaScript would refuse it. */
  static String toJava(String js) {
    try {
      JsPattern pattern = new JsPattern(js);
      pattern.countGroups();
      pattern.translate();
      return pattern.out.toString();
    } catch (Refused e) {
      return null;
    }
  }

  /** A pattern JavaScript refuses; thrown only within this class. */
  private static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Refused() {
      super(null, null, false, false);
    }
  }

  /**
   * Numbers every capturing group, named ones included, in order of their '(' outside classes
   * and escapes, and names the named ones.
   */
  private void countGroups() {
    boolean inClass = false;
    for (int k = 0; k < js.length(); k++) {
      char c = js.charAt(k);
      if (c == '\\') {
        k++;
      } else if (inClass) {
        if (c == ']') inClass = false;
      } else if (c == '[') {
        inClass = true;
      } else if (c == '(' && !js.startsWith("(?", k)) {
        groupCount++;
      } else if (js.startsWith("(?<", k) && !js.startsWith("(?<=", k)
          && !js.startsWith("(?<!", k)) {
        groupCount++;
        int close = js.indexOf('>', k);
        if (close < 0) throw new Refused();
        String name = js.substring(k + 3, close);
        if (!isIdentifier(name) || names.put(name, groupCount) != null) throw new Refused();
      }
    }
  }

  private void translate() {
    boolean quantifiable = false;
    int n = js.length();
    while (i < n) {
      char c = js.charAt(i);
      switch (c) {
        case '\\':
          if (i + 1 >= n) throw new Refused();
          // An assertion takes no quantifier.
          quantifiable = js.charAt(i + 1) != 'b' && js.charAt(i + 1) != 'B';
          if (js.charAt(i + 1) == 'k' && !names.isEmpty()) {
            namedReference();
          } else {
            i++;
            escape(false);
          }
          break;
        case '[':
          i++;
          charClass();
          quantifiable = true;
          break;
        case '(':
          openGroup();
          quantifiable = false;
          break;
        case ')': {
          if (open.isEmpty()) throw new Refused();
          int group = open.pop();
          if (group > 0) {
            out.append("(?<m").append(group).append(">)");
            closed.set(group);
          }
          out.append(')');
          quantifiable = group != LOOKBEHIND;
          i++;
          break;
        }
        case '*':
        case '+':
        case '?':
        case '{':
          quantifiable = quantifier(c, quantifiable);
          break;
        default:
          quantifiable = literal(c);
          i++;
      }
    }
    if (!open.isEmpty()) throw new Refused();
  }

  /** A quantifier, or a plain '{'; returns whether a quantifier may follow it. */
  private boolean quantifier(char c, boolean quantifiable) {
    int end = c == '{' ? braceQuantifier(i) : i + 1;
    if (end < 0) {
      // Not a quantifier: a plain '{' (JavaScript's web-compatibility grammar).
      out.append("\\{");
      i++;
      return true;
    }
    if (!quantifiable) throw new Refused();
    out.append(js, i, end);
    i = end;
    if (i < js.length() && js.charAt(i) == '?') out.append(js.charAt(i++));
    return false;
  }

  /** A character outside a class; returns whether a quantifier may follow it. */
  private boolean literal(char c) {
    switch (c) {
      case '.':
        out.append("[^\\n\\r\\u2028\\u2029]");
        return true;
      case '$':
        out.append("\\z");
        return false;
      case '^':
      case '|':
        out.append(c);
        return false;
      case '}':
      case ']':
        out.append('\\').append(c);
        return true;
      default:
        out.append(c);
        return true;
    }
  }

  private void openGroup() {
    if (!js.startsWith("(?", i)) {
      openCapturing(1);
    } else if (js.startsWith("(?:", i)) {
      open.push(NON_CAPTURING);
      out.append("(?:");
      i += 3;
    } else if (js.startsWith("(?=", i) || js.startsWith("(?!", i)) {
      open.push(LOOKAHEAD);
      out.append(js, i, i + 3);
      i += 3;
    } else if (js.startsWith("(?<=", i) || js.startsWith("(?<!", i)) {
      open.push(LOOKBEHIND);
      out.append(js, i, i + 4);
      i += 4;
    } else if (js.startsWith("(?<", i)) {
      openCapturing(js.indexOf('>', i) + 1 - i);
    } else {
      // JavaScript refuses every other (?...), Java's (?i) and (?>...) among them.
      throw new Refused();
    }
  }

  /**
   * Every capturing group becomes a named one with an empty group "m" closing it, which has
   * matched exactly when the group has: what a backreference needs to tell "not matched yet"
   * (JavaScript: the empty string) from "matched other text" (no match).
   */
  private void openCapturing(int length) {
    int group = ++opened;
    open.push(group);
    out.append("(?<g").append(group).append('>');
    i += length;
  }

  private void backreference(int group) {
    if (closed.get(group)) {
      out.append("(?:\\k<g").append(group).append(">|(?!\\k<m").append(group).append(">))");
    } else {
      // Within its own group, or before it: JavaScript's group has not matched, so empty.
      out.append("(?:)");
    }
  }

  /** A {@code \k<name>}, at its backslash. */
  private void namedReference() {
    int close = js.indexOf('>', i);
    if (!js.startsWith("\\k<", i) || close < 0) throw new Refused();
    Integer group = names.get(js.substring(i + 3, close));
    if (group == null) throw new Refused();
    backreference(group);
    i = close + 1;
  }

  /** The end of a {n}, {n,} or {n,m} quantifier starting at from, or -1 when it is not one. */
  private int braceQuantifier(int from) {
    int j = from + 1;
    int digits = j;
    while (j < js.length() && isDigit(js.charAt(j))) j++;
    if (j == digits) return -1;
    if (j < js.length() && js.charAt(j) == ',') {
      j++;
      while (j < js.length() && isDigit(js.charAt(j))) j++;
    }
    return j < js.length() && js.charAt(j) == '}' ? j + 1 : -1;
  }

  /** A class, from just after its '[' to just after its ']'. */
  private void charClass() {
    int n = js.length();
    boolean negated = i < n && js.charAt(i) == '^';
    if (negated) i++;
    if (i < n && js.charAt(i) == ']') {
      out.append(negated ? "[\\s\\S]" : "(?!)");
      i++;
      return;
    }
    out.append(negated ? "[^" : "[");
    boolean afterSet = false;
    while (i < n) {
      char c = js.charAt(i);
      if (c == ']') {
        out.append(']');
        i++;
        return;
      }
      if (c == '\\') {
        if (i + 1 >= n) throw new Refused();
        afterSet = isSetEscape(i);
        i++;
        escape(true);
        continue;
      }
      // A '-' beside \d, \w or \s is a plain '-' in JavaScript, where Java sees a bad range.
      if (c == '[' || c == '&' || c == '^' || (c == '-' && (afterSet || isSetEscape(i + 1)))) {
        out.append('\\');
      }
      out.append(c);
      afterSet = false;
      i++;
    }
    throw new Refused();
  }

  private boolean isSetEscape(int at) {
    return at + 1 < js.length() && js.charAt(at) == '\\'
        && "dDwWsS".indexOf(js.charAt(at + 1)) >= 0;
  }

  /** The escape whose character is at i (just after the backslash). */
  private void escape(boolean inClass) {
    char c = js.charAt(i);
    switch (c) {
      case 'd': case 'D': case 'w': case 'W': case 'f': case 'n': case 'r': case 't':
        out.append('\\').append(c);
        i++;
        return;
      case 's':
        out.append(inClass ? JS_SPACE : "[" + JS_SPACE + "]");
        i++;
        return;
      case 'S':
        // In a class a nested class is Java's union: the complement joins the class.
        out.append("[^").append(JS_SPACE).append(']');
        i++;
        return;
      case 'v':
        out.append("\\x0B");
        i++;
        return;
      case 'b':
        out.append(inClass ? "\\x08" : "(?:(?<=" + WORD + ")(?!" + WORD + ")|(?<!" + WORD
            + ")(?=" + WORD + "))");
        i++;
        return;
      case 'B':
        out.append(inClass ? "B" : "(?:(?<=" + WORD + ")(?=" + WORD + ")|(?<!" + WORD
            + ")(?!" + WORD + "))");
        i++;
        return;
      case 'c': {
        char next = i + 1 < js.length() ? js.charAt(i + 1) : '\0';
        if (isAsciiLetter(next) || (inClass && (isDigit(next) || next == '_'))) {
          appendChar(next % 32);
          i += 2;
        } else {
          // No control letter: a plain backslash, and the 'c' reads on as itself.
          out.append("\\\\");
        }
        return;
      }
      case 'x':
        hexEscape(2);
        return;
      case 'u':
        hexEscape(4);
        return;
      default:
        if (isDigit(c)) {
          digitEscape(inClass);
        } else {
          appendChar(c);
          i++;
        }
    }
  }

  /** An x escape with 2 hex digits, a u escape with 4; with fewer, the plain letter. */
  private void hexEscape(int digits) {
    int end = i + 1 + digits;
    boolean hex = end <= js.length();
    for (int k = i + 1; hex && k < end; k++) hex = isHexDigit(js.charAt(k));
    if (hex) {
      appendChar(Integer.parseInt(js.substring(i + 1, end), 16));
      i = end;
    } else {
      appendChar(js.charAt(i));
      i++;
    }
  }

  /** A backreference when its group exists, else a legacy octal escape (or a plain 8 or 9). */
  private void digitEscape(boolean inClass) {
    int j = i;
    while (j < js.length() && isDigit(js.charAt(j))) j++;
    if (!inClass && js.charAt(i) != '0' && j - i <= 9) {
      int number = Integer.parseInt(js.substring(i, j));
      if (number <= groupCount) {
        backreference(number);
        i = j;
        return;
      }
    }
    if (js.charAt(i) >= '8') {
      appendChar(js.charAt(i));
      i++;
      return;
    }
    int value = 0;
    int k = i;
    while (k < js.length() && k < i + 3 && js.charAt(k) >= '0' && js.charAt(k) <= '7') {
      int next = value * 8 + (js.charAt(k) - '0');
      if (next > 0377) break;
      value = next;
      k++;
    }
    appendChar(value);
    i = k;
  }

  private void appendChar(int c) {
    out.append("\\x{").append(Integer.toHexString(c)).append('}');
  }

  private static boolean isIdentifier(String name) {
    if (name.isEmpty() || !Character.isJavaIdentifierStart(name.charAt(0))) return false;
    for (int k = 1; k < name.length(); k++) {
      if (!Character.isJavaIdentifierPart(name.charAt(k))) return false;
    }
    return true;
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private static boolean isHexDigit(char c) {
    return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }

  private static boolean isAsciiLetter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }
}
