package dev.arbiter.client;

import java.util.ArrayList;
import java.util.List;

/**
 * The one translation of a pattern from the dialect every evaluator runs (a JavaScript RegExp
 * without flags but {@code i}, in the portable subset of docs/wire-format.md#regular-expressions)
 * to java.util.regex. Inside the subset, Java reads a few constructs differently, and these
 * alone are rewritten:
 * <ul>
 *   <li>{@code $} is {@code \z} (Java's {@code $} also matches before a final line break);
 *   <li>{@code .} is {@code [^\n\r\u2028\u2029]} (Java's also excludes U+0085);
 *   <li>{@code \s} and {@code \S} are JavaScript's whitespace set and its complement, written out;
 *   <li>{@code \b} and {@code \B} are ASCII word boundaries, written with lookarounds (Java's
 *       read Unicode letters as word characters);
 *   <li>a {@code ]} or {@code }} outside a class, and a {@code &} or {@code ^} inside one, are
 *       escaped, as literals.
 * </ul>
 * Everything else is copied. A pattern outside the subset (what the portable check refuses:
 * {@code (?<}, lookbehind, backreferences, octal, {@code \A \p \v \c ...}, {@code [} or
 * {@code &&} in a class, {@code []} and {@code [^]}, a class range with a class escape as an end,
 * a {@code {} that is no quantifier), or one JavaScript refuses (a quantifier with nothing to
 * repeat, an unclosed group or class), is no pattern: the condition is unreadable, as in every
 * evaluator.
 */
final class JsPattern {
  private static final String JS_SPACE =
      "\\t\\n\\x0B\\f\\r \\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF";
  private static final String NOT_JS_SPACE = "\\x00-\\x08\\x0E-\\x1F\\x21-\\x9F\\xA1-\\u167F"
      + "\\u1681-\\u1FFF\\u200B-\\u2027\\u202A-\\u202E\\u2030-\\u205E\\u2060-\\u2FFF"
      + "\\u3001-\\uFEFE\\uFF00-\\x{10FFFF}";
  private static final String WORD = "[A-Za-z0-9_]";
  private static final String BOUNDARY =
      "(?:(?<=" + WORD + ")(?!" + WORD + ")|(?<!" + WORD + ")(?=" + WORD + "))";
  private static final String NOT_BOUNDARY =
      "(?:(?<=" + WORD + ")(?=" + WORD + ")|(?<!" + WORD + ")(?!" + WORD + "))";
  // The escaped letters of the subset, outside and inside a class; x and u take hex digits.
  private static final String ESCAPES = "dDwWsSbBnrtf";
  private static final String CLASS_ESCAPES = "dDwWsSnrtf";

  /** What a class holds, in order, for the check of its ranges. */
  private enum Atom { CHAR, SET, DASH }

  private final String js;
  private final StringBuilder out;
  private int depth;
  private int i;

  private JsPattern(String js) {
    this.js = js;
    this.out = new StringBuilder(js.length() + 16);
  }

  /** The Java form of a pattern, or null when it is outside the subset or JavaScript refuses it. */
  static String toJava(String js) {
    try {
      JsPattern pattern = new JsPattern(js);
      pattern.translate();
      return pattern.out.toString();
    } catch (Refused e) {
      return null;
    }
  }

  /** A pattern outside the subset; thrown only within this class. */
  private static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Refused() {
      super(null, null, false, false);
    }
  }

  private static void refuseUnless(boolean condition) {
    if (!condition) throw new Refused();
  }

  private void translate() {
    boolean quantifiable = false;
    while (i < js.length()) {
      char c = js.charAt(i);
      if (c == '*' || c == '+' || c == '?' || c == '{') {
        refuseUnless(quantifiable);
        quantifier();
        quantifiable = false;
      } else {
        quantifiable = atom(c);
      }
    }
    refuseUnless(depth == 0);
  }

  /** One atom or assertion outside a class; returns whether a quantifier may follow it. */
  private boolean atom(char c) {
    i++;
    switch (c) {
      case '\\':
        return escape();
      case '[':
        charClass();
        return true;
      case '(':
        openGroup();
        return false;
      case ')':
        refuseUnless(depth > 0);
        depth--;
        out.append(')');
        return true;
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
      case ']':
      case '}':
        out.append('\\').append(c);
        return true;
      default:
        out.append(c);
        return true;
    }
  }

  /** A {@code *}, {@code +}, {@code ?} or {n}, {n,}, {n,m} quantifier, lazy or not. */
  private void quantifier() {
    int end = i + 1;
    if (js.charAt(i) == '{') {
      int digits = end;
      while (end < js.length() && isDigit(js.charAt(end))) end++;
      refuseUnless(end > digits);
      if (end < js.length() && js.charAt(end) == ',') {
        end++;
        while (end < js.length() && isDigit(js.charAt(end))) end++;
      }
      refuseUnless(end < js.length() && js.charAt(end) == '}');
      end++;
    }
    out.append(js, i, end);
    i = end;
    if (i < js.length() && js.charAt(i) == '?') out.append(js.charAt(i++));
  }

  /** After a '(': a capturing group, or {@code (?:}, {@code (?=}, {@code (?!}. */
  private void openGroup() {
    if (i < js.length() && js.charAt(i) == '?') {
      refuseUnless(i + 1 < js.length() && ":=!".indexOf(js.charAt(i + 1)) >= 0);
      out.append("(?").append(js.charAt(i + 1));
      i += 2;
    } else {
      out.append('(');
    }
    depth++;
  }

  /** After a backslash outside a class; returns whether a quantifier may follow it. */
  private boolean escape() {
    refuseUnless(i < js.length());
    char c = js.charAt(i);
    if (c == 'b' || c == 'B') {
      out.append(c == 'b' ? BOUNDARY : NOT_BOUNDARY);
      i++;
      return false;
    }
    if (c == 's' || c == 'S') {
      out.append(c == 's' ? "[" + JS_SPACE + "]" : "[" + NOT_JS_SPACE + "]");
      i++;
      return true;
    }
    copyEscape(ESCAPES);
    return true;
  }

  /**
   * An escape of the subset other than {@code \s \S \b \B}, copied: the letters given, x with
   * two hex digits, u with four, or an ASCII character that is not a letter or a digit.
   */
  private Atom copyEscape(String letters) {
    char c = js.charAt(i);
    int end = i + 1;
    if (c == 'x' || c == 'u') {
      end += c == 'x' ? 2 : 4;
      refuseUnless(end <= js.length());
      for (int k = i + 1; k < end; k++) refuseUnless(isHexDigit(js.charAt(k)));
    } else if (isAsciiLetter(c)) {
      refuseUnless(letters.indexOf(c) >= 0);
    } else {
      refuseUnless(c < 0x80 && !isDigit(c));
    }
    out.append('\\').append(js, i, end);
    i = end;
    return "dDwW".indexOf(c) >= 0 ? Atom.SET : Atom.CHAR;
  }

  /** A class, from just after its '[' to just after its ']'. */
  private void charClass() {
    boolean negated = i < js.length() && js.charAt(i) == '^';
    if (negated) i++;
    refuseUnless(i < js.length() && js.charAt(i) != ']');
    out.append(negated ? "[^" : "[");
    List<Atom> atoms = new ArrayList<>();
    while (i < js.length()) {
      char c = js.charAt(i);
      if (c == ']') {
        refuseUnless(rangesHaveNoSetEnd(atoms));
        out.append(']');
        i++;
        return;
      }
      atoms.add(classMember(c, atoms.isEmpty() ? null : atoms.get(atoms.size() - 1)));
    }
    throw new Refused();
  }

  /**
   * One member of a class at i, written out; what it is for the check of ranges. A '-' beside
   * a class escape is a literal (a range there is refused) and is escaped, as Java needs.
   */
  private Atom classMember(char c, Atom previous) {
    i++;
    if (c == '\\') {
      refuseUnless(i < js.length());
      char e = js.charAt(i);
      if (e == 's' || e == 'S') {
        out.append(e == 's' ? JS_SPACE : NOT_JS_SPACE);
        i++;
        return Atom.SET;
      }
      return copyEscape(CLASS_ESCAPES);
    }
    refuseUnless(c != '[' && !(c == '&' && i < js.length() && js.charAt(i) == '&'));
    boolean besideSet = c == '-' && (previous == Atom.SET || (js.startsWith("\\", i)
        && i + 1 < js.length() && "dDwWsS".indexOf(js.charAt(i + 1)) >= 0));
    if (c == '&' || c == '^' || besideSet) out.append('\\');
    out.append(c);
    return c == '-' ? Atom.DASH : Atom.CHAR;
  }

  /**
   * Whether no range of a class has a class escape as an end ({@code [\d-z]}: JavaScript reads
   * the '-' as a literal, Python refuses). Ranges are read left to right, so in {@code [a-b-\d]}
   * the second '-' is a literal after the range a-b.
   */
  private static boolean rangesHaveNoSetEnd(List<Atom> atoms) {
    int k = 0;
    while (k < atoms.size()) {
      if (k + 2 < atoms.size() && atoms.get(k + 1) == Atom.DASH) {
        if (atoms.get(k) == Atom.SET || atoms.get(k + 2) == Atom.SET) return false;
        k += 3;
      } else {
        k++;
      }
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
