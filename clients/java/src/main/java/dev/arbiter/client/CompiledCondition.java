package dev.arbiter.client;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntPredicate;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * A readable condition prepared once for many evaluations (what a client keeps per experiment).
 * A condition of field paths only (no {@code $and}/{@code $or}/{@code $nor}/{@code $not}) becomes
 * one test per operator, with its operand prepared: a set for {@code $in}/{@code $nin} of
 * strings, the compiled pattern of {@code $regex}, the padded operand of a version operator,
 * and the answers of regex and version tests for the attribute strings seen.
 * Every other operator, and every other condition, is left to {@link ConditionEvaluator}, so the
 * answers are its answers (issue 29: reading the condition's JSON map on every call cost 20
 * times the assignment itself, see bench/java-client/RESULTS.md).
 */
final class CompiledCondition {
  /** One operator of one field: whether the field's value passes. */
  interface FieldTest {
    boolean test(Object actual, Map<String, ?> groups);
  }

  private static final int MAX_REMEMBERED = 1000;

  private final Map<?, ?> interpreted;
  /** Each test's field path, split on dots once. */
  private final String[][] paths;
  private final FieldTest[] tests;

  private CompiledCondition(Map<?, ?> interpreted, String[][] paths, FieldTest[] tests) {
    this.interpreted = interpreted;
    this.paths = paths;
    this.tests = tests;
  }

  /** Prepares a condition {@link ConditionCheck#isReadable} has accepted. */
  static CompiledCondition of(Map<?, ?> condition) {
    List<String[]> paths = new ArrayList<>();
    List<FieldTest> tests = new ArrayList<>();
    for (Map.Entry<?, ?> entry : condition.entrySet()) {
      String key = (String) entry.getKey();
      Object value = entry.getValue();
      if (key.equals("$and") || key.equals("$or") || key.equals("$nor") || key.equals("$not")) {
        return new CompiledCondition(condition, null, null);
      }
      if (value instanceof Map && ConditionCheck.isOperatorObject((Map<?, ?>) value)) {
        for (Map.Entry<?, ?> op : ((Map<?, ?>) value).entrySet()) {
          paths.add(key.split("\\.", -1));
          tests.add(operator((String) op.getKey(), op.getValue()));
        }
      } else {
        paths.add(key.split("\\.", -1));
        tests.add((actual, groups) -> ConditionEvaluator.valueMatches(value, actual, groups, false));
      }
    }
    return new CompiledCondition(null, paths.toArray(new String[0][]),
        tests.toArray(new FieldTest[0]));
  }

  /** Whether the attributes satisfy the condition. Never throws. */
  boolean matches(Map<String, ?> attributes, Map<String, ?> savedGroups) {
    Map<String, ?> groups = savedGroups == null ? Map.of() : savedGroups;
    if (interpreted != null) return ConditionEvaluator.evalReadable(attributes, interpreted, groups);
    try {
      for (int i = 0; i < tests.length; i++) {
        if (!tests[i].test(read(attributes, paths[i]), groups)) return false;
      }
      return true;
    } catch (RuntimeException | StackOverflowError e) {
      // Only attributes nested deeper than the stack, or a map that changed while being read.
      return false;
    }
  }

  /** {@link ConditionEvaluator#readPath} over a path split beforehand. */
  private static Object read(Object attributes, String[] path) {
    Object current = attributes;
    for (String part : path) {
      if (current instanceof Map) {
        current = ConditionValues.json(((Map<?, ?>) current).get(part));
      } else if (current instanceof List) {
        current = ConditionEvaluator.arrayPart((List<?>) current, part);
      } else {
        return null;
      }
      if (current == null) return null;
    }
    return current;
  }

  private static FieldTest operator(String operator, Object operand) {
    switch (operator) {
      case "$in":
      case "$nin": {
        Set<String> strings = stringsOnly(operand);
        if (strings == null) break;
        return operator.equals("$in") ? (actual, groups) -> containsString(strings, actual)
            : (actual, groups) -> !containsString(strings, actual);
      }
      case "$regex":
      case "$regexi": {
        Pattern pattern = ConditionRegex.compile((String) operand, operator.equals("$regexi"));
        if (pattern == null) return (actual, groups) -> false;
        return remembering(actual -> {
          String text = ConditionValues.stringForm(actual);
          return text != null && pattern.matcher(text).find();
        });
      }
      case "$veq":
      case "$vne":
      case "$vlt":
      case "$vlte":
      case "$vgt":
      case "$vgte": {
        String padded = VersionString.padded(operand);
        IntPredicate wanted = versionTest(operator);
        return remembering(actual -> wanted.test(VersionString.padded(actual).compareTo(padded)));
      }
      case "$lt":
        return (actual, groups) -> ConditionEvaluator.ordered(actual, operand, -1, -1);
      case "$lte":
        return (actual, groups) -> ConditionEvaluator.ordered(actual, operand, -1, 0);
      case "$gt":
        return (actual, groups) -> ConditionEvaluator.ordered(actual, operand, 1, 1);
      case "$gte":
        return (actual, groups) -> ConditionEvaluator.ordered(actual, operand, 0, 1);
      default:
        break;
    }
    return (actual, groups) -> ConditionEvaluator.operatorMatches(operator, actual, operand, groups);
  }

  private static IntPredicate versionTest(String operator) {
    switch (operator) {
      case "$veq": return order -> order == 0;
      case "$vne": return order -> order != 0;
      case "$vlt": return order -> order < 0;
      case "$vlte": return order -> order <= 0;
      case "$vgt": return order -> order > 0;
      default: return order -> order >= 0;
    }
  }

  /**
   * A test that depends on its value alone, with its answer for each attribute string kept:
   * the strings that regexes and versions read (locales, countries, app versions) repeat from
   * user to user, so a lookup replaces a regex search or a version padding. Bounded, and
   * cleared when full.
   */
  private static FieldTest remembering(Predicate<Object> test) {
    Map<String, Boolean> answers = new ConcurrentHashMap<>();
    return (actual, groups) -> {
      if (!(actual instanceof String)) return test.test(actual);
      Boolean answer = answers.get(actual);
      if (answer == null) {
        answer = test.test(actual);
        if (answers.size() >= MAX_REMEMBERED) answers.clear();
        answers.put((String) actual, answer);
      }
      return answer;
    };
  }

  /** The list's items when every one is a string; else null (the evaluator's lookup then). */
  private static Set<String> stringsOnly(Object operand) {
    Set<String> strings = new HashSet<>();
    for (Object item : (List<?>) operand) {
      if (!(item instanceof String)) return null;
      strings.add((String) item);
    }
    return strings;
  }

  // As the evaluator's $in: a string equals a string item; an array is in when an element is.
  private static boolean containsString(Set<String> strings, Object actual) {
    if (actual instanceof String) return strings.contains(actual);
    if (actual instanceof List) {
      for (Object element : (List<?>) actual) {
        Object value = ConditionValues.json(element);
        if (value instanceof String && strings.contains(value)) return true;
      }
    }
    return false;
  }
}
