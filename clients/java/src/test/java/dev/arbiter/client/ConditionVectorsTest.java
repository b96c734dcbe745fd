package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every case of the shared condition vectors, read in place: GrowthBook's own evalCondition
 * cases and Arbiter's. Each case is [name, condition, attributes, expected] or the same with
 * saved groups as a fifth element.
 */
class ConditionVectorsTest {
  private static final Map<String, Object> GROWTHBOOK =
      RepoFiles.json("testdata/growthbook/eval-condition.json");
  private static final Map<String, Object> ARBITER = RepoFiles.json("testdata/conditions.json");

  @SuppressWarnings("unchecked")
  private static List<List<Object>> cases(Map<String, Object> doc) {
    return (List<List<Object>>) doc.get("evalCondition");
  }

  @Test
  void vectorFilesHaveCases() {
    assertTrue(cases(GROWTHBOOK).size() > 200);
    assertTrue(cases(ARBITER).size() > 300);
    assertEquals("1", ARBITER.get("specVersion"));
  }

  @TestFactory
  Stream<DynamicTest> growthbookCases() {
    return tests("growthbook", cases(GROWTHBOOK));
  }

  @TestFactory
  Stream<DynamicTest> arbiterCases() {
    return tests("arbiter", cases(ARBITER));
  }

  @SuppressWarnings("unchecked")
  private static Stream<DynamicTest> tests(String file, List<List<Object>> all) {
    List<DynamicTest> tests = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      List<Object> c = all.get(i);
      String name = file + " " + i + ": " + c.get(0);
      tests.add(DynamicTest.dynamicTest(name, () -> {
        Map<String, Object> attributes = (Map<String, Object>) c.get(2);
        Map<String, Object> groups = c.size() > 4 ? (Map<String, Object>) c.get(4) : null;
        assertEquals(c.get(3), ConditionEvaluator.evalCondition(attributes, c.get(1), groups),
            () -> name + "\ncondition " + JsonWriter.write(c.get(1)) + "\nattributes "
                + JsonWriter.write(attributes));
        // The same case through PreparedAttributes, twice: resolved, then from the kept fields.
        PreparedAttributes prepared = PreparedAttributes.of(attributes);
        FieldTable table = new FieldTable();
        CompiledCondition compiled = ConditionCheck.isReadable(c.get(1))
            ? CompiledCondition.of((Map<?, ?>) c.get(1), table) : null;
        for (int use = 0; use < 2; use++) {
          assertEquals(c.get(3), compiled != null && matches(compiled, prepared, groups),
              () -> name + " (prepared)\ncondition " + JsonWriter.write(c.get(1))
                  + "\nattributes " + JsonWriter.write(attributes));
        }
      }));
    }
    return tests.stream();
  }

  /** A compiled targeting over a prepared value, as {@link CompiledExperiment#admits} reads it. */
  static boolean matches(CompiledCondition compiled, PreparedAttributes prepared,
      Map<String, ?> groups) {
    Map<String, ?> map = PreparedAttributes.mapOf(prepared);
    return map instanceof PreparedAttributes ? compiled.matches((PreparedAttributes) map, groups)
        : compiled.matches(map == null ? Map.of() : map, groups);
  }
}
