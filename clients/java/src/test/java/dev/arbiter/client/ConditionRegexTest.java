package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Arrays;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * $regex patterns of the subset every evaluator runs read as JavaScript reads them, where
 * java.util.regex would read the same text differently; patterns outside it are no pattern. The
 * expected results are JavaScript's, for each row {@code new RegExp(pattern, flags).test(input)}
 * in Node.js 20.
 */
class ConditionRegexTest {
  /** Pattern, case-insensitive, input, whether JavaScript finds a match. */
  private static final Object[][] JAVASCRIPT = {
      {"c$", false, "abc\n", false},
      {"c$", false, "abc", true},
      {"a.c", false, "a\u0085c", true},
      {"a.c", false, "a\rc", false},
      {"a.c", false, "a\u2028c", false},
      {"^\\s$", false, "\u00a0", true},
      {"^\\s$", false, "\ufeff", true},
      {"^\\s$", false, "\u0085", false},
      {"^\\S$", false, "\u0085", true},
      {"[\\s]", false, "\u3000", true},
      {"[^\\S]", false, "\u2029", true},
      {"^[\\S]$", false, " ", false},
      {"^[\\S]$", false, "x", true},
      {"^[^\\s]$", false, "\u3000", false},
      {"^[\\s\\d]+$", false, "1 2", true},
      {"\\bfoo\\b", false, "\u00e9foo", true},
      {"\\Bfoo", false, "\u00e9foo", false},
      {"^\\u0041$", false, "A", true},
      {"^\\x41\\-$", false, "A-", true},
      {"^[\\x41-\\x43]+$", true, "abc", true},
      {"^a{2}$", false, "aa", true},
      {"^a+?b*?c??d{1,2}?$", false, "abcdd", true},
      {"^(?:ab|cd)(?!x)", false, "cdy", true},
      {"^[\\d-]$", false, "-", true},
      {"^[-\\s]$", false, "-", true},
      {"^[a-b-\\d]$", false, "-", true},
      {"^[a-b-\\d]$", false, "5", true},
      {"a]b}", false, "a]b}", true},
      {"^[a^&]+$", false, "^&a", true},
      {"^stra\u00dfe$", true, "STRA\u00dfE", true},
      {"^\u00e9$", true, "\u00c9", true},
      {"^abc$", true, "ABC", true},
      {"[a-z]", true, "Q", true},
      {"^\\/$", false, "/", true},
      {"a/b", false, "a/b", true},
  };

  /**
   * Patterns no evaluator runs: JavaScript refuses the first 22 (Java would accept some), the rest
   * are outside the subset (JavaScript runs them, Python or Java would read them differently).
   */
  private static final String[] REFUSED = {
      "a++", "a*+", "a?+", "(?i)a", "(?>a)", "a**", "*a", "+", "(", ")", "a)", "[a", "\\",
      "(?<n>a)(?<n>b)", "(?<1>a)", "\\k<x>(?<y>a)", "a{2}{3}", "^*", "\\b+", "a{2,1}", "[z-a]",
      "(?<=a)*",
      "\\v", "\\0", "\\012", "\\8", "\\ca", "\\c1", "[\\c1]", "[\\b]", "\\x4", "\\u41", "[^]",
      "a[]", "[]]", "[[]", "[a&&b]", "[\\d-z]", "[a-\\d]", "[\\s-\\d]", "a{", "{foo}", "x{,2}",
      "\\A", "\\Q.\\E", "\\p{L}", "\\z", "\\h", "(a)?\\1b", "\\1(a)", "(a)\\1",
      "(?<year>\\d{4})-\\k<year>", "\\k<n>", "(?<=a)b", "(?<!a)b", "\\\u00e9"
  };

  @TestFactory
  Stream<DynamicTest> matchesAsJavaScriptDoes() {
    return Arrays.stream(JAVASCRIPT).map(row -> DynamicTest.dynamicTest(
        "/" + row[0] + "/" + ((Boolean) row[1] ? "i" : "") + " on " + JsonWriter.write(row[2]),
        () -> {
          Pattern pattern = ConditionRegex.compile((String) row[0], (Boolean) row[1]);
          assertNotNull(pattern, "JavaScript reads this pattern");
          assertEquals(row[3], pattern.matcher((String) row[2]).find(), pattern.pattern());
        }));
  }

  @TestFactory
  Stream<DynamicTest> refusesWhatNoEvaluatorRuns() {
    return Arrays.stream(REFUSED).map(p -> DynamicTest.dynamicTest(p, () -> {
      assertNull(ConditionRegex.compile(p, false));
      assertNull(ConditionRegex.compile(p, true));
    }));
  }

  @Test
  void aRefusedPatternMakesTheConditionUnreadable() {
    assertFalse(ConditionCheck.isReadable(JsonReader.parse("{\"a\":{\"$regex\":\"a++\"}}")));
    assertFalse(ConditionEvaluator.evalCondition(Map.of("a", "aa"),
        JsonReader.parse("{\"$not\":{\"a\":{\"$regex\":\"a++\"}}}"), null));
  }

  @Test
  void compiledPatternsAreCachedPerFlag() {
    Pattern plain = ConditionRegex.compile("^ab+$", false);
    Pattern folded = ConditionRegex.compile("^ab+$", true);
    assertEquals(plain, ConditionRegex.compile("^ab+$", false));
    assertEquals(false, plain.matcher("ABB").find());
    assertEquals(true, folded.matcher("ABB").find());
  }
}
