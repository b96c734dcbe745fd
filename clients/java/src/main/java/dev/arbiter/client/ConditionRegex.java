package dev.arbiter.client;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The patterns of {@code $regex} and {@code $regexi}: JavaScript RegExp syntax (no flags but
 * {@code i}), the dialect the server validates at save time, rewritten for java.util.regex where
 * the two read the same text differently:
 * <ul>
 *   <li>{@code $} is the end of the text only (Java's also matches before a final line break);
 *   <li>{@code .} excludes just \n, \r, U+2028 and U+2029 (Java's also U+0085);
 *   <li>{@code \s} is JavaScript's whitespace set, {@code \b} an ASCII word boundary, {@code \v}
 *       a vertical tab, {@code \0} NUL, {@code \cx} a control character;
 *   <li>{@code [^]} is any character and {@code []} none; '[' and '&amp;' in a class are plain;
 *   <li>a '{' or '}' that is not a quantifier, and an escaped letter JavaScript does not know
 *       ({@code \A}, {@code \Q}, {@code \p}, ...), are the plain character;
 *   <li>what JavaScript refuses (a quantifier on a quantifier, Java's {@code (?i)} or
 *       {@code (?>...)}) is no pattern here either.
 * </ul>
 * Compiled patterns are cached; the cache is bounded against a caller evaluating ever new
 * conditions.
 */
final class ConditionRegex {
  private static final int MAX_ENTRIES = 1000;
  private static final Map<String, Optional<Pattern>> CACHE = new ConcurrentHashMap<>();
  private static final String JS_SPACE =
      "\\t\\n\\x0B\\f\\r \\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF";
  private static final String WORD = "[A-Za-z0-9_]";

  private ConditionRegex() {}

  /** The pattern compiled (case-insensitive when asked), or null when it is not valid. */
  static Pattern compile(String pattern, boolean insensitive) {
    String key = (insensitive ? "i" : "-") + pattern;
    Optional<Pattern> cached = CACHE.get(key);
    if (cached != null) return cached.orElse(null);
    Pattern compiled = translateAndCompile(pattern, insensitive);
    if (CACHE.size() >= MAX_ENTRIES) CACHE.clear();
    CACHE.put(key, Optional.ofNullable(compiled));
    return compiled;
  }

  private static Pattern translateAndCompile(String pattern, boolean insensitive) {
    try {
      String java = translate(pattern);
      if (java == null) return null;
      return Pattern.compile(java, insensitive ? Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE : 0);
    } catch (PatternSyntaxException | StackOverflowError e) {
      return null;
    }
  }

  /** The Java form of a JavaScript pattern, or null when JavaScript would refuse it. */
  static String translate(String js) {
    StringBuilder out = new StringBuilder(js.length() + 16);
    Map<String, String> names = new HashMap<>();
    int groups = countGroups(js, names);
    if (groups < 0) return null;
    boolean quantifiable = false;
    int i = 0;
    int n = js.length();
    while (i < n) {
      char c = js.charAt(i);
      switch (c) {
        case '\\':
          if (i + 1 >= n) return null;
          if (js.charAt(i + 1) == 'k' && !names.isEmpty()) {
            i = namedReference(js, i + 2, out, names);
            if (i < 0) return null;
          } else {
            i = escape(js, i + 1, out, false, groups);
          }
          quantifiable = true;
          continue;
        case '[':
          i = charClass(js, i + 1, out);
          if (i < 0) return null;
          quantifiable = true;
          continue;
        case '.':
          out.append("[^\\n\\r\\u2028\\u2029]");
          quantifiable = true;
          break;
        case '$':
          out.append("(?![\\s\\S])");
          quantifiable = false;
          break;
        case '^':
          out.append('^');
          quantifiable = false;
          break;
        case '(':
          if (js.startsWith("(?", i)) {
            if (js.startsWith("(?:", i) || js.startsWith("(?=", i) || js.startsWith("(?!", i)) {
              out.append(js, i, i + 3);
              i += 3;
            } else if (js.startsWith("(?<=", i) || js.startsWith("(?<!", i)) {
              out.append(js, i, i + 4);
              i += 4;
            } else if (js.startsWith("(?<", i)) {
              // JavaScript's names (any identifier) become valid Java names.
              int close = js.indexOf('>', i);
              out.append("(?<").append(names.get(js.substring(i + 3, close))).append('>');
              i = close + 1;
            } else {
              // JavaScript refuses every other (?...), Java's (?i) and (?>...) among them.
              return null;
            }
          } else {
            out.append('(');
            i++;
          }
          quantifiable = false;
          continue;
        case ')':
          out.append(')');
          quantifiable = true;
          break;
        case '|':
          out.append('|');
          quantifiable = false;
          break;
        case '*':
        case '+':
        case '?':
        case '{': {
          int end = c == '{' ? braceQuantifier(js, i) : i + 1;
          if (end < 0) {
            // Not a quantifier: a plain '{' (JavaScript's web-compatibility grammar).
            out.append("\\{");
            quantifiable = true;
            break;
          }
          if (!quantifiable) return null;
          out.append(js, i, end);
          i = end;
          if (i < n && js.charAt(i) == '?') out.append(js.charAt(i++));
          quantifiable = false;
          continue;
        }
        case '}':
        case ']':
          out.append('\\').append(c);
          quantifiable = true;
          break;
        default:
          out.append(c);
          quantifiable = true;
      }
      i++;
    }
    return out.toString();
  }

  /** The end of a {n}, {n,} or {n,m} quantifier starting at i, or -1 when it is not one. */
  private static int braceQuantifier(String js, int i) {
    int j = i + 1;
    int digits = j;
    while (j < js.length() && Character.isDigit(js.charAt(j)) && js.charAt(j) < 128) j++;
    if (j == digits) return -1;
    if (j < js.length() && js.charAt(j) == ',') {
      j++;
      while (j < js.length() && js.charAt(j) >= '0' && js.charAt(j) <= '9') j++;
    }
    return j < js.length() && js.charAt(j) == '}' ? j + 1 : -1;
  }

  /** A {@code \k<name>} from just after the 'k'; -1 when the name is not a group's. */
  private static int namedReference(String js, int i, StringBuilder out,
      Map<String, String> names) {
    int close = js.indexOf('>', i);
    if (i >= js.length() || js.charAt(i) != '<' || close < 0) return -1;
    String name = names.get(js.substring(i + 1, close));
    if (name == null) return -1;
    out.append("\\k<").append(name).append('>');
    return close + 1;
  }

  /**
   * Capturing groups: '(' not followed by '?', and named groups, outside classes and escapes;
   * each name is given a Java name. -1 when a name is repeated or not an identifier.
   */
  private static int countGroups(String js, Map<String, String> names) {
    int count = 0;
    boolean inClass = false;
    for (int i = 0; i < js.length(); i++) {
      char c = js.charAt(i);
      if (c == '\\') {
        i++;
      } else if (inClass) {
        if (c == ']') inClass = false;
      } else if (c == '[') {
        inClass = true;
      } else if (c == '(' && (i + 1 >= js.length() || js.charAt(i + 1) != '?')) {
        count++;
      } else if (js.startsWith("(?<", i) && i + 3 < js.length() && js.charAt(i + 3) != '='
          && js.charAt(i + 3) != '!') {
        count++;
        int close = js.indexOf('>', i);
        if (close < 0) return -1;
        String name = js.substring(i + 3, close);
        if (!isIdentifier(name) || names.put(name, "arbiterGroup" + count) != null) return -1;
      }
    }
    return count;
  }

  /** A class from just after '['; returns the index after its ']' or -1 when unterminated. */
  private static int charClass(String js, int i, StringBuilder out) {
    int n = js.length();
    boolean negated = i < n && js.charAt(i) == '^';
    if (negated) i++;
    if (i < n && js.charAt(i) == ']') {
      out.append(negated ? "[\\s\\S]" : "(?!)");
      return i + 1;
    }
    out.append(negated ? "[^" : "[");
    while (i < n) {
      char c = js.charAt(i);
      if (c == ']') {
        out.append(']');
        return i + 1;
      }
      if (c == '\\') {
        if (i + 1 >= n) return -1;
        i = escape(js, i + 1, out, true, 0);
        continue;
      }
      if (c == '[' || c == '&' || c == '^') out.append('\\');
      out.append(c);
      i++;
    }
    return -1;
  }

  /** The escape whose letter is at i; appends its Java form, returns the index after it. */
  private static int escape(String js, int i, StringBuilder out, boolean inClass, int groups) {
    char c = js.charAt(i);
    switch (c) {
      case 'd': case 'D': case 'w': case 'W': case 'f': case 'n': case 'r': case 't':
        out.append('\\').append(c);
        return i + 1;
      case 's':
        out.append(inClass ? JS_SPACE : "[" + JS_SPACE + "]");
        return i + 1;
      case 'S':
        // In a class the complement cannot be nested plainly: a nested class is Java's union.
        out.append("[^").append(JS_SPACE).append(']');
        return i + 1;
      case 'v':
        out.append("\\x0B");
        return i + 1;
      case 'b':
        if (inClass) {
          out.append("\\x08");
        } else {
          out.append("(?:(?<=" + WORD + ")(?!" + WORD + ")|(?<!" + WORD + ")(?=" + WORD + "))");
        }
        return i + 1;
      case 'B':
        if (inClass) {
          out.append('B');
        } else {
          out.append("(?:(?<=" + WORD + ")(?=" + WORD + ")|(?<!" + WORD + ")(?!" + WORD + "))");
        }
        return i + 1;
      case 'c':
        if (i + 1 < js.length() && isAsciiLetter(js.charAt(i + 1))) {
          appendChar(out, js.charAt(i + 1) % 32);
          return i + 2;
        }
        out.append("\\\\");
        return i;
      case 'x':
        if (isHex(js, i + 1, 2)) {
          out.append("\\x").append(js, i + 1, i + 3);
          return i + 3;
        }
        appendChar(out, 'x');
        return i + 1;
      case 'u':
        if (isHex(js, i + 1, 4)) {
          out.append("\\u").append(js, i + 1, i + 5);
          return i + 5;
        }
        appendChar(out, 'u');
        return i + 1;
      default:
        break;
    }
    if (c >= '0' && c <= '9') return digitEscape(js, i, out, inClass, groups);
    appendChar(out, c);
    return i + 1;
  }

  /** A backreference when its group exists, else a legacy octal escape (or a plain 8 or 9). */
  private static int digitEscape(String js, int i, StringBuilder out, boolean inClass,
      int groups) {
    int j = i;
    while (j < js.length() && js.charAt(j) >= '0' && js.charAt(j) <= '9') j++;
    if (!inClass && js.charAt(i) != '0') {
      int number = Integer.parseInt(js.substring(i, Math.min(j, i + 9)));
      if (number <= groups) {
        out.append("(?:\\").append(number).append(')');
        return j;
      }
    }
    if (js.charAt(i) >= '8') {
      appendChar(out, js.charAt(i));
      return i + 1;
    }
    int value = 0;
    int k = i;
    while (k < js.length() && k < i + 3 && js.charAt(k) >= '0' && js.charAt(k) <= '7') {
      int next = value * 8 + (js.charAt(k) - '0');
      if (next > 0377) break;
      value = next;
      k++;
    }
    appendChar(out, value);
    return k;
  }

  private static void appendChar(StringBuilder out, int c) {
    out.append(String.format("\\x{%X}", c));
  }

  private static boolean isIdentifier(String name) {
    if (name.isEmpty() || !Character.isJavaIdentifierStart(name.charAt(0))) return false;
    for (int k = 1; k < name.length(); k++) {
      if (!Character.isJavaIdentifierPart(name.charAt(k))) return false;
    }
    return true;
  }

  private static boolean isAsciiLetter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }

  private static boolean isHex(String js, int from, int count) {
    if (from + count > js.length()) return false;
    for (int k = from; k < from + count; k++) {
      if (Character.digit(js.charAt(k), 16) < 0 || js.charAt(k) > 'f') return false;
    }
    return true;
  }
}
