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
 * $regex patterns read as JavaScript reads them, where java.util.regex would read the same text
 * differently. The expected results are JavaScript's, for each row
 * {@code new RegExp(pattern, flags).test(input)} in Node.js 20.
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
      {"\\bfoo\\b", false, "\u00e9foo", true},
      {"\\Bfoo", false, "\u00e9foo", false},
      {"^\\v$", false, "\u000b", true},
      {"^\\v$", false, "\n", false},
      {"^\\0$", false, "\u0000", true},
      {"^\\012$", false, "\n", true},
      {"^\\8$", false, "8", true},
      {"^\\ca$", false, "\u0001", true},
      {"^\\c1$", false, "\\c1", true},
      {"^[\\c1]$", false, "\u0011", true},
      {"^[\\b]$", false, "\b", true},
      {"^\\x4$", false, "x4", true},
      {"^\\u41$", false, "u41", true},
      {"^\\u0041$", false, "A", true},
      {"[^]", false, "\n", true},
      {"a[]", false, "a", false},
      {"[]]", false, "]", false},
      {"^[[]$", false, "[", true},
      {"^[a&&b]$", false, "&", true},
      {"^[\\d-z]$", false, "-", true},
      {"^[a-\\d]$", false, "5", true},
      {"a{", false, "a{", true},
      {"{foo}", false, "{foo}", true},
      {"^a{2}$", false, "aa", true},
      {"x{,2}", false, "x{,2}", true},
      {"\\A", false, "A", true},
      {"\\Q.\\E", false, "Q.E", true},
      {"\\Q.\\E", false, ".", false},
      {"\\p{L}", false, "p{L}", true},
      {"\\p{L}", false, "\u00e9", false},
      {"\\z", false, "z", true},
      {"\\h", false, " ", false},
      {"(a)?\\1b", false, "b", true},
      {"\\1(a)", false, "a", true},
      {"(a)\\1", false, "ab", false},
      {"(a)\\2", false, "a\u0002", true},
      {"(?<year>\\d{4})-\\k<year>", false, "2024-2024", true},
      {"(?<a_b>x)\\k<a_b>", false, "xx", true},
      {"\\k<n>", false, "k<n>", true},
      {"^stra\u00dfe$", true, "STRA\u00dfE", true},
      {"^\u00e9$", true, "\u00c9", true},
      {"^abc$", true, "ABC", true},
      {"[a-z]", true, "Q", true},
      {"(?<=a)b", false, "ab", true},
      {"(?<!a)b", false, "ab", false},
      {"^\\/$", false, "/", true},
      {"a/b", false, "a/b", true},
  };

  /** Patterns JavaScript refuses (new RegExp throws); Java would accept some of them. */
  private static final String[] REFUSED = {
      "a++", "a*+", "a?+", "(?i)a", "(?>a)", "a**", "*a", "+", "(", ")", "a)", "[a", "\\",
      "(?<n>a)(?<n>b)", "(?<1>a)", "\\k<x>(?<y>a)", "a{2}{3}", "^*", "\\b+", "a{2,1}", "[z-a]",
      "(?<=a)*"
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
  Stream<DynamicTest> refusesWhatJavaScriptRefuses() {
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
