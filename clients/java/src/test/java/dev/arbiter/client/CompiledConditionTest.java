package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A condition prepared once answers as the evaluator reading its JSON does, over many users:
 * the kept answers of regexes and versions (more distinct strings than the table has slots, so
 * entries are replaced, and the same strings again, so entries are found), short and long
 * {@code $in} lists, and orderings against numbers and strings with values of every type.
 */
class CompiledConditionTest {
  private static final Object[] ODD_VALUES = {null, true, false, 0L, -0.0, 18L, 17.999, 1e300,
      Double.NaN, "18", "", "x", List.of("pro"), List.of("free", "team"), Map.of("a", 1L),
      new StringBuilder("pro"), 'p'};

  private static Map<String, Object> condition(String field, String operator, Object operand) {
    Map<String, Object> op = new LinkedHashMap<>();
    op.put(operator, operand);
    return Map.of(field, op);
  }

  @Test
  void preparedOnceAnswersAsTheEvaluatorForManyUsers() {
    List<String> many = new ArrayList<>();
    for (int i = 0; i < 12; i++) many.add("plan-" + i);
    List<Map<String, Object>> conditions = List.of(
        condition("plan", "$in", List.of("pro", "team")),
        condition("plan", "$nin", List.of("pro", "team")),
        condition("plan", "$in", many),
        condition("plan", "$nin", many),
        condition("locale", "$regexi", "^en"),
        condition("locale", "$regex", "-(US|GB)$"),
        condition("app.version", "$vgte", "2.4.0"),
        condition("app.version", "$vlt", "2.10"),
        condition("age", "$gte", 18L),
        condition("age", "$lt", 17.5),
        condition("age", "$gt", "18"),
        condition("plan", "$eq", "pro"));
    Random random = new Random(29);
    List<Map<String, Object>> users = new ArrayList<>();
    for (int i = 0; i < 6_000; i++) {
      Map<String, Object> user = new LinkedHashMap<>();
      int pick = random.nextInt(4_000);
      user.put("plan", random.nextInt(5) == 0 ? odd(random) : pick % 3 == 0 ? "pro"
          : "plan-" + pick % 20);
      // Up to 4,000 distinct locales and versions: more than the 1,024 kept answers.
      user.put("locale", random.nextInt(9) == 0 ? odd(random)
          : (pick % 2 == 0 ? "en-" : "fr-") + (pick % 3 == 0 ? "US" : "x" + pick));
      user.put("app", Collections.singletonMap("version", random.nextInt(9) == 0 ? odd(random)
          : "2." + pick % 17 + "." + pick / 17));
      user.put("age", random.nextInt(3) == 0 ? odd(random) : (long) (pick % 40));
      users.add(user);
    }
    for (Map<String, Object> condition : conditions) {
      CompiledCondition compiled = CompiledCondition.of(condition);
      int[] outcomes = new int[2];
      // Twice over: the second pass finds the kept answers the first one left.
      for (int pass = 0; pass < 2; pass++) {
        for (Map<String, Object> user : users) {
          boolean want = ConditionEvaluator.evalReadable(user, condition, Map.of());
          assertEquals(want, compiled.matches(user, Map.of()), condition + " on " + user);
          outcomes[want ? 1 : 0]++;
        }
      }
      assertTrue(outcomes[0] > 100 && outcomes[1] > 100, condition + ": " + outcomes[0]
          + " false, " + outcomes[1] + " true");
    }
  }

  private static Object odd(Random random) {
    return ODD_VALUES[random.nextInt(ODD_VALUES.length)];
  }
}
