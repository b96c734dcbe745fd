package dev.arbiter.client;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Which {@code $regex} / {@code $regexi} patterns the client runs, and on which values (the rule
 * of testdata/regex-safety.json, the same in every evaluator).
 *
 * <p>A pattern is unsafe when a group repeated more than once ({@code *}, {@code +},
 * {@code {n,}}, or {@code {n,m}} / {@code {n}} with a maximum of 2 or more) holds, at any depth,
 * a quantifier ({@code *}, {@code +}, {@code ?}, {@code {..}}) or an alternation ({@code |}): the
 * shape of catastrophic backtracking ({@code ^(a+)+$}). Escaped characters and characters inside
 * a class never count. An unsafe pattern is never compiled: the operator reads it as an invalid
 * pattern. A string longer than {@link #MAX_SUBJECT_LENGTH} code points is never searched: it
 * does not match.
 *
 * <p>The check reads the pattern once, left to right, with a stack of the open groups: linear in
 * the pattern's length, whatever it holds.
 */
final class RegexSafety {
  /** The longest string, in code points, a pattern is searched in. */
  static final int MAX_SUBJECT_LENGTH = 1024;

  private final String pattern;
  // One flag per open group (the outermost is the pattern itself): whether it holds a quantifier
  // or an alternation so far.
  private final Deque<Boolean> holds = new ArrayDeque<>();
  private int i;

  private RegexSafety(String pattern) {
    this.pattern = pattern;
    holds.push(false);
  }

  /** Whether no group repeated more than once holds a quantifier or an alternation. */
  static boolean isSafe(String pattern) {
    return new RegexSafety(pattern).read();
  }

  /** Whether a pattern may be searched in the text: it is at most the cap in code points. */
  static boolean searchable(String text) {
    // Two UTF-16 units per code point at most: a short text needs no count.
    return text.length() <= MAX_SUBJECT_LENGTH
        || text.length() <= 2 * MAX_SUBJECT_LENGTH
            && text.codePointCount(0, text.length()) <= MAX_SUBJECT_LENGTH;
  }

  private boolean read() {
    while (i < pattern.length()) {
      char ch = pattern.charAt(i);
      if (ch == '(') {
        holds.push(false);
        i = groupBody(i + 1);
        continue;
      }
      if (ch == '|') {
        mark(true);
        i++;
        continue;
      }
      if (ch == ')') {
        if (!closeGroup()) return false;
        continue;
      }
      if (ch == '\\') {
        i += 2; // the escaped character is an atom, whatever it is
      } else if (ch == '[') {
        i = classEnd(i);
      } else {
        i++;
      }
      // After an atom: a quantifier on it.
      long quantifier = quantifier(i);
      if (quantifier >= 0) {
        mark(true);
        i = end(quantifier);
      }
    }
    return true;
  }

  /** Closes the group at the ')' at i; false when it is repeated and holds a quantifier. */
  private boolean closeGroup() {
    boolean inner = holds.size() > 1 && holds.pop();
    long quantifier = quantifier(i + 1);
    if (quantifier < 0) {
      mark(inner);
      i++;
      return true;
    }
    if (inner && repeats(quantifier)) return false;
    mark(true); // a quantified group is a quantifier in the group around it
    i = end(quantifier);
    return true;
  }

  private void mark(boolean holdsOne) {
    if (holdsOne && !holds.peek()) {
      holds.pop();
      holds.push(true);
    }
  }

  /**
   * The index after the class opening at start (a ']' first in it closes it, as in JavaScript);
   * the pattern's end when it never closes.
   */
  private int classEnd(int start) {
    int at = start + 1;
    if (at < pattern.length() && pattern.charAt(at) == '^') at++;
    while (at < pattern.length()) {
      char ch = pattern.charAt(at);
      if (ch == '\\') {
        at += 2;
      } else if (ch == ']') {
        return at + 1;
      } else {
        at++;
      }
    }
    return pattern.length();
  }

  /**
   * The index of a group's first atom, past {@code ?:}, {@code ?=}, {@code ?!}, {@code ?<=},
   * {@code ?<!} or {@code ?<name>}: the '?' of a group's kind is not a quantifier.
   */
  private int groupBody(int at) {
    if (!pattern.startsWith("?", at)) return at;
    at++;
    if (pattern.startsWith("<", at)
        && !pattern.startsWith("<=", at)
        && !pattern.startsWith("<!", at)) {
      int close = pattern.indexOf('>', at);
      return close < 0 ? pattern.length() : close + 1;
    }
    return at + (pattern.startsWith("<", at) ? 2 : 1);
  }

  // A quantifier is packed in a long: the index after it (lazy '?' included), and in bit 32
  // whether it repeats more than once; -1 when there is none.
  private static long quantifierAt(int end, boolean repeats) {
    return (repeats ? 1L << 32 : 0L) | end;
  }

  private static int end(long quantifier) {
    return (int) quantifier;
  }

  private static boolean repeats(long quantifier) {
    return (quantifier >>> 32) != 0;
  }

  private long quantifier(int at) {
    if (at >= pattern.length()) return -1;
    char ch = pattern.charAt(at);
    long found;
    if (ch == '*' || ch == '+') {
      found = quantifierAt(at + 1, true);
    } else if (ch == '?') {
      found = quantifierAt(at + 1, false);
    } else if (ch == '{') {
      found = braces(at);
      if (found < 0) return -1; // a plain '{'
    } else {
      return -1;
    }
    return pattern.startsWith("?", end(found)) ? found + 1 : found; // lazy
  }

  /** {n}, {n,} or {n,m} at the '{' at; -1 when the brace is plain. */
  private long braces(int at) {
    int lowEnd = digitsEnd(at + 1);
    if (lowEnd == at + 1) return -1;
    if (pattern.startsWith("}", lowEnd)) {
      return quantifierAt(lowEnd + 1, atLeastTwo(at + 1, lowEnd));
    }
    if (!pattern.startsWith(",", lowEnd)) return -1;
    int highEnd = digitsEnd(lowEnd + 1);
    if (!pattern.startsWith("}", highEnd)) return -1;
    if (highEnd == lowEnd + 1) return quantifierAt(highEnd + 1, true); // {n,}
    return quantifierAt(highEnd + 1, atLeastTwo(lowEnd + 1, highEnd));
  }

  private int digitsEnd(int at) {
    while (at < pattern.length() && pattern.charAt(at) >= '0' && pattern.charAt(at) <= '9') at++;
    return at;
  }

  /** Whether the decimal digits from start to end are 2 or more, however many there are. */
  private boolean atLeastTwo(int start, int end) {
    while (start < end && pattern.charAt(start) == '0') start++;
    return end - start > 1 || end - start == 1 && pattern.charAt(start) >= '2';
  }
}
