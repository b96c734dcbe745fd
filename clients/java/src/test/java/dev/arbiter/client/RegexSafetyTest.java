package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The patterns the client runs: every vector of testdata/regex-safety.json, the cross-check of
 * testdata/regex-random.json, and a hand-made config whose targeting pattern backtracks for ever.
 */
class RegexSafetyTest {
  private static final Map<String, Object> SAFETY = RepoFiles.json("testdata/regex-safety.json");
  private static final Map<String, Object> RANDOM = RepoFiles.json("testdata/regex-random.json");

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> list(Map<String, Object> doc, String key) {
    return (List<Map<String, Object>>) doc.get(key);
  }

  /** The condition {"v": {operator: pattern}} against {"v": value}, both ways the client reads it. */
  private static List<Boolean> answers(String operator, String pattern, Object value) {
    Map<String, Object> condition = Map.of("v", Map.of(operator, pattern));
    Map<String, Object> attributes = value == null ? Map.of() : Map.of("v", value);
    boolean tree = ConditionEvaluator.evalCondition(attributes, condition, null);
    boolean compiled = ConditionCheck.isReadable(condition)
        && CompiledCondition.of(condition, new FieldTable()).matches(attributes, null);
    return List.of(tree, compiled);
  }

  @Test
  void theFilesHoldVectors() {
    assertEquals(RegexSafety.MAX_SUBJECT_LENGTH,
        ((Number) SAFETY.get("maxSubjectLength")).intValue());
    assertTrue(list(SAFETY, "patterns").stream().anyMatch(p -> p.get("safe").equals(true)));
    assertTrue(list(SAFETY, "patterns").stream().anyMatch(p -> p.get("safe").equals(false)));
    assertTrue(list(SAFETY, "evaluations").size() >= 10);
    assertEquals(1000, list(RANDOM, "patterns").size());
  }

  @TestFactory
  Stream<DynamicTest> eachPatternIsSafeOrNotAsTheVectorSays() {
    return list(SAFETY, "patterns").stream().map(v -> DynamicTest.dynamicTest(
        (String) v.get("pattern"), () -> {
          String pattern = (String) v.get("pattern");
          boolean safe = (Boolean) v.get("safe");
          assertEquals(safe, RegexSafety.isSafe(pattern));
          for (String operator : List.of("$regex", "$regexi")) {
            // An unsafe pattern reads as an invalid one: the whole condition matches no one.
            assertEquals(safe, ConditionCheck.isReadable(Map.of("v", Map.of(operator, pattern))));
            assertEquals(safe, ConditionRegex.compile(pattern, operator.equals("$regexi")) != null);
            if (!safe) {
              Map<String, Object> negated = Map.of("v", Map.of("$not", Map.of(operator, pattern)));
              assertFalse(ConditionEvaluator.evalCondition(Map.of("v", "x"), negated, null));
            }
          }
        }));
  }

  @Test
  void eachEvaluationAtTheLengthCapAnswersAsTheVectorSays() {
    List<String> got = new ArrayList<>();
    List<String> want = new ArrayList<>();
    for (Map<String, Object> v : list(SAFETY, "evaluations")) {
      String value = (String) v.get("value");
      String label = v.get("pattern") + " on " + value.codePointCount(0, value.length()) + ": ";
      got.add(label + answers("$regex", (String) v.get("pattern"), value));
      want.add(label + List.of(v.get("matches"), v.get("matches")));
    }
    assertEquals(want, got);
  }

  @TestFactory
  Stream<DynamicTest> eachUnportablePatternMakesItsConditionUnreadable() {
    assertTrue(list(SAFETY, "unportable").size() > 10);
    return list(SAFETY, "unportable").stream().map(v -> DynamicTest.dynamicTest(
        (String) v.get("pattern"), () -> {
          String pattern = (String) v.get("pattern");
          for (String operator : List.of("$regex", "$regexi")) {
            assertNull(ConditionRegex.compile(pattern, operator.equals("$regexi")));
            assertFalse(ConditionCheck.isReadable(Map.of("v", Map.of(operator, pattern))));
            assertEquals(List.of(false, false), answers(operator, pattern, v.get("value")));
            Map<String, Object> beside = Map.of("$or", List.of(
                Map.of("v", Map.of(operator, pattern)), Map.of("absent", Map.of("$exists", false))));
            assertFalse(ConditionEvaluator.evalCondition(Map.of("v", v.get("value")), beside, null));
          }
        }));
  }

  @Test
  void aValuePastTheCapNeverMatchesEvenAPatternThatMatchesAnything() {
    int cap = RegexSafety.MAX_SUBJECT_LENGTH;
    assertEquals(List.of(true, true), answers("$regexi", "", "x".repeat(cap)));
    assertEquals(List.of(false, false), answers("$regexi", "", "x".repeat(cap + 1)));
    // Code points, not UTF-16 units: 1,024 emoji (2,048 units) are within the cap.
    assertEquals(List.of(true, true), answers("$regex", "", "\uD83D\uDE00".repeat(cap)));
    assertEquals(List.of(false, false), answers("$regex", "", "\uD83D\uDE00".repeat(cap + 1)));
  }

  @Test
  @SuppressWarnings("unchecked")
  void everyRandomPatternMatchesAsJavaScriptDoes() {
    List<String> mismatches = new ArrayList<>();
    for (Map<String, Object> entry : list(RANDOM, "patterns")) {
      String operator = entry.get("insensitive").equals(true) ? "$regexi" : "$regex";
      String pattern = (String) entry.get("pattern");
      for (Map<String, Object> c : (List<Map<String, Object>>) entry.get("values")) {
        boolean want = (Boolean) c.get("matches");
        if (!answers(operator, pattern, c.get("value")).equals(List.of(want, want))) {
          mismatches.add(operator + " " + pattern + " on " + c.get("value") + ": want " + want);
        }
      }
    }
    assertEquals(List.of(), mismatches);
  }

  @Test
  void aHostilePatternInAServedConfigIsNeverRun() throws Exception {
    Map<String, Object> config = RepoFiles.json("testdata/regex-hostile-config.json");
    try (ReadyClient ready = ReadyClient.start(config, b -> b.pollInterval(Duration.ofHours(1)))) {
      Arbiter client = ready.client;
      Map<String, String> hostile = Map.of("handle", "a".repeat(29) + "!");
      // Without the rule this search takes minutes (2^29 ways to split the 'a's); with it the
      // pattern is never compiled, so the targeting matches no one.
      assertNull(client.assign("hostile-handle", "user-1", hostile));
      assertNull(client.assign("hostile-handle", "user-2", Map.of("handle", "aaa")));
      assertTrue(client.getPrompt("hostile-handle", "user-1", "default", hostile).fallback());
      // The safe pattern beside it runs: the client evaluates targeting at all.
      assertTrue(List.of("control", "treatment")
          .contains(client.assign("safe-handle", "user-2", Map.of("handle", "aaa"))));
      assertNull(client.assign("safe-handle", "user-1", hostile));
    }
  }
}
