package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The evaluator never throws, whatever the condition and attributes: random JSON (seeded), with
 * operators and operands of every kind, and attributes of every Java type a caller may pass.
 */
class ConditionPropertyTest {
  private static final String[] OPERATORS = {"$eq", "$ne", "$lt", "$lte", "$gt", "$gte", "$in",
      "$nin", "$ini", "$nini", "$all", "$alli", "$exists", "$type", "$size", "$elemMatch", "$not",
      "$regex", "$regexi", "$veq", "$vne", "$vgt", "$vgte", "$vlt", "$vlte", "$inGroup",
      "$notInGroup", "$and", "$or", "$nor", "$bogus"};
  private static final String[] KEYS = {"a", "b", "a.b", "b.c.d", "tags", "", "a.", "$x", "0"};
  private static final String[] STRINGS = {"", "a", "A", "1", "1.2.3", "v2.0.0-rc.1+b", "pro",
      "string", "number", "array", "null", "object", "boolean", "^a", "a++", "(", "[", "\\",
      "(a)?\\1", "é", "\ud83d\ude00", "\ud800", "g1", "1e400", "-0", "NaN"};

  @Test
  void neverThrowsOnRandomConditionsAndAttributes() {
    Random random = new Random(2911);
    Map<String, Object> groups = Map.of("g1", List.of("a", 1L, true), "g2", "not a list");
    int[] readable = new int[2];
    for (int n = 0; n < 30_000; n++) {
      Object condition = randomCondition(random, 4);
      Map<String, Object> attributes = randomAttributes(random);
      boolean first = assertDoesNotThrow(
          () -> ConditionEvaluator.evalCondition(attributes, condition, groups));
      assertEquals(first, ConditionEvaluator.evalCondition(attributes, condition, groups));
      if (!ConditionCheck.isReadable(condition)) {
        assertFalse(first, "an unreadable condition matches no one");
        continue;
      }
      readable[first ? 1 : 0]++;
      // Negation is exact for a readable condition, and $nor of one condition is its $not.
      Map<String, Object> not = Map.of("$not", condition);
      Map<String, Object> nor = Map.of("$nor", List.of(condition));
      assertEquals(!first, ConditionEvaluator.evalCondition(attributes, not, groups));
      assertEquals(!first, ConditionEvaluator.evalCondition(attributes, nor, groups));
    }
    // The generator reaches both outcomes of readable conditions, not only refusals.
    assertTrue(readable[0] > 1000 && readable[1] > 1000,
        readable[0] + " false, " + readable[1] + " true");
  }

  @Test
  void neverThrowsOnNonJsonOrCyclicInput() {
    Map<String, Object> cyclic = new HashMap<>();
    cyclic.put("self", cyclic);
    List<Object> loop = new ArrayList<>();
    loop.add(loop);
    cyclic.put("loop", loop);
    Object[] conditions = {null, "x", 5L, List.of(), Map.of(1, 2),
        JsonReader.parse("{\"self\":{\"$eq\":{}}}"), JsonReader.parse("{\"loop\":{\"$in\":[[]]}}"),
        JsonReader.parse("{\"loop\":{\"$elemMatch\":{\"$size\":1}}}"),
        JsonReader.parse("{\"self.self.self\":{\"$exists\":true}}"), cyclic};
    Map<String, Object> groups = new HashMap<>();
    groups.put("g", loop);
    for (Object condition : conditions) {
      assertDoesNotThrow(() -> ConditionEvaluator.evalCondition(cyclic, condition, groups));
      assertDoesNotThrow(() -> ConditionEvaluator.evalCondition(null, condition, null));
    }
    assertEquals(true, ConditionEvaluator.evalCondition(cyclic,
        JsonReader.parse("{\"self.self.self\":{\"$exists\":true}}"), null));
  }

  private static Object randomCondition(Random random, int depth) {
    int size = random.nextInt(3);
    Map<String, Object> condition = new LinkedHashMap<>();
    for (int i = 0; i < size; i++) {
      int kind = random.nextInt(10);
      if (kind == 0 && depth > 0) {
        String logical = new String[] {"$and", "$or", "$nor"}[random.nextInt(3)];
        List<Object> items = new ArrayList<>();
        for (int k = random.nextInt(3); k > 0; k--) items.add(randomCondition(random, depth - 1));
        condition.put(logical, random.nextInt(20) == 0 ? randomValue(random, 1) : items);
      } else if (kind == 1 && depth > 0) {
        condition.put("$not", randomCondition(random, depth - 1));
      } else {
        condition.put(KEYS[random.nextInt(KEYS.length)], randomConditionValue(random, depth));
      }
    }
    return random.nextInt(50) == 0 ? randomValue(random, 1) : condition;
  }

  private static Object randomConditionValue(Random random, int depth) {
    if (random.nextInt(3) == 0 || depth == 0) return randomValue(random, 2);
    Map<String, Object> operators = new LinkedHashMap<>();
    for (int k = 1 + random.nextInt(2); k > 0; k--) {
      String operator = OPERATORS[random.nextInt(OPERATORS.length)];
      Object operand;
      switch (random.nextInt(4)) {
        case 0: operand = randomConditionValue(random, depth - 1); break;
        case 1: operand = randomCondition(random, depth - 1); break;
        default: operand = randomValue(random, 2);
      }
      operators.put(operator, operand);
    }
    if (random.nextInt(30) == 0) operators.put("field", 1L);
    return operators;
  }

  private static Map<String, Object> randomAttributes(Random random) {
    Map<String, Object> attributes = new HashMap<>();
    for (int k = random.nextInt(5); k > 0; k--) {
      attributes.put(KEYS[random.nextInt(KEYS.length)], randomValue(random, 3));
    }
    return attributes;
  }

  /** Any JSON value, and now and then a Java type a caller may pass instead. */
  private static Object randomValue(Random random, int depth) {
    switch (random.nextInt(depth > 0 ? 16 : 12)) {
      case 0: return null;
      case 1: return random.nextBoolean();
      case 2: return (long) random.nextInt(7) - 3;
      case 3: return random.nextDouble() * 10 - 5;
      case 4: {
        double[] odd = {Double.NaN, Double.NEGATIVE_INFINITY, -0.0, 1e21};
        return odd[random.nextInt(odd.length)];
      }
      case 5: return random.nextInt(5);
      case 6: return new BigDecimal(random.nextInt(1000)).movePointLeft(random.nextInt(4));
      case 7: return new StringBuilder(STRINGS[random.nextInt(STRINGS.length)]);
      case 8: return Thread.State.values()[random.nextInt(3)];
      case 9: case 10: case 11: return STRINGS[random.nextInt(STRINGS.length)];
      case 12: case 13: {
        List<Object> list = new ArrayList<>();
        for (int k = random.nextInt(4); k > 0; k--) list.add(randomValue(random, depth - 1));
        return random.nextInt(4) == 0 ? list.toArray() : list;
      }
      default: {
        Map<String, Object> object = new LinkedHashMap<>();
        for (int k = random.nextInt(3); k > 0; k--) {
          object.put(KEYS[random.nextInt(KEYS.length)], randomValue(random, depth - 1));
        }
        return object;
      }
    }
  }
}
