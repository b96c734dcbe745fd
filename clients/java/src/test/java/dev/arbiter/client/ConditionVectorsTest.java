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
      }));
    }
    return tests.stream();
  }
}
