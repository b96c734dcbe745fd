package dev.arbiter.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;
import java.util.regex.Pattern;

/**
 * A readable condition prepared once for many evaluations (what a client keeps per experiment).
 * A condition of field paths only (no {@code $and}/{@code $or}/{@code $nor}/{@code $not}) becomes
 * one test per operator, each of a small final class with its operand prepared: the strings of
 * {@code $in}/{@code $nin}, the bound of an ordering against a number, the kept answers of
 * {@code $regex} and the version operators. Every other operator, and every other condition, is
 * left to {@link ConditionEvaluator}, so the answers are its answers (reading the
 * condition's JSON map on every call cost 20 times the assignment itself, see
 * bench/java-client/RESULTS.md).
 *
 * <p>The tests run grouped by class, not in the condition's order: each loop then calls one
 * class, which the JIT inlines, where one loop over all kinds dispatched on every test (the
 * targeting speed goal of bench/java-client). The answer cannot change: the condition is the conjunction of its tests,
 * no test has an effect a caller sees, and a test that throws makes the whole condition false,
 * whichever runs first.
 *
 * <p>A test is given its field's value, not where to read it: the loops of each
 * {@code matches} read it (from the caller's map, or from a prepared value's slots), so one test
 * method serves both with no call through an interface at each read.
 */
final class CompiledCondition {
  private static final StringListTest[] NO_LISTS = {};
  private static final NumberBoundTest[] NO_BOUNDS = {};
  private static final KeptAnswerTest[] NO_KEPT = {};
  private static final FieldTest[] NO_OTHERS = {};

  /** The condition itself when it has a logical operator: the evaluator reads it then. */
  private final Map<?, ?> interpreted;
  private final StringListTest[] lists;
  private final NumberBoundTest[] bounds;
  private final KeptAnswerTest[] kept;
  private final FieldTest[] others;
  /** The config's field table its fields are numbered in, or null (then prepared values read the map). */
  private final FieldTable table;

  private CompiledCondition(Map<?, ?> interpreted, StringListTest[] lists,
      NumberBoundTest[] bounds, KeptAnswerTest[] kept, FieldTest[] others, FieldTable table) {
    this.table = table;
    this.interpreted = interpreted;
    this.lists = lists;
    this.bounds = bounds;
    this.kept = kept;
    this.others = others;
  }

  /** Prepares a condition {@link ConditionCheck#isReadable} has accepted. */
  static CompiledCondition of(Map<?, ?> condition) {
    return of(condition, null);
  }

  /**
   * {@link #of(Map)} with its fields numbered in {@code table} (null: none), the config's, for
   * {@link #matches(PreparedAttributes, Map)}. A condition with a logical operator takes no
   * field from it: the evaluator reads the prepared map itself.
   */
  static CompiledCondition of(Map<?, ?> condition, FieldTable table) {
    Builder tests = new Builder(table);
    for (Map.Entry<?, ?> entry : condition.entrySet()) {
      String key = (String) entry.getKey();
      Object value = entry.getValue();
      if (key.equals("$and") || key.equals("$or") || key.equals("$nor") || key.equals("$not")) {
        return new CompiledCondition(condition, NO_LISTS, NO_BOUNDS, NO_KEPT, NO_OTHERS, null);
      }
      ConditionField field = table == null ? new ConditionField(key) : table.field(key);
      if (value instanceof Map && ConditionCheck.isOperatorObject((Map<?, ?>) value)) {
        for (Map.Entry<?, ?> op : ((Map<?, ?>) value).entrySet()) {
          tests.add(field, (String) op.getKey(), op.getValue());
        }
      } else {
        tests.others.add(new FieldTest(field, null, value));
      }
    }
    return new CompiledCondition(null, tests.lists.toArray(NO_LISTS),
        tests.bounds.toArray(NO_BOUNDS), tests.kept.toArray(NO_KEPT),
        tests.others.toArray(NO_OTHERS), table);
  }

  /** Whether the attributes satisfy the condition. Never throws. */
  boolean matches(Map<String, ?> attributes, Map<String, ?> savedGroups) {
    Map<String, ?> groups = savedGroups == null ? Map.of() : savedGroups;
    if (interpreted != null) return ConditionEvaluator.evalReadable(attributes, interpreted, groups);
    try {
      for (StringListTest test : lists) {
        if (!test.test(test.field.read(attributes))) return false;
      }
      for (NumberBoundTest test : bounds) {
        if (!test.test(test.field.read(attributes))) return false;
      }
      for (KeptAnswerTest test : kept) {
        if (!test.test(test.field.read(attributes))) return false;
      }
      for (FieldTest test : others) {
        if (!test.test(test.field.read(attributes), groups)) return false;
      }
      return true;
    } catch (RuntimeException | StackOverflowError e) {
      // Only attributes nested deeper than the stack, or a map that changed while being read.
      return false;
    }
  }

  /**
   * {@link #matches(Map, Map)} for a prepared value: the same tests over the fields it resolved
   * for this condition's table (once per config version), so no map is read here. Never throws.
   */
  boolean matches(PreparedAttributes prepared, Map<String, ?> savedGroups) {
    if (interpreted != null || table == null) return matches((Map<String, ?>) prepared, savedGroups);
    Map<String, ?> groups = savedGroups == null ? Map.of() : savedGroups;
    try {
      Object[] values = prepared.resolvedFor(table);
      for (StringListTest test : lists) {
        if (!test.testSlot(test.field.slot(values))) return false;
      }
      for (NumberBoundTest test : bounds) {
        if (!test.test(test.field.value(values))) return false;
      }
      for (KeptAnswerTest test : kept) {
        if (!test.testSlot(test.field.slot(values))) return false;
      }
      for (FieldTest test : others) {
        if (!test.test(test.field.value(values), groups)) return false;
      }
      return true;
    } catch (RuntimeException | StackOverflowError e) {
      // A field whose read threw (ConditionField#UNREADABLE), or attributes nested too deep.
      return false;
    }
  }

  /** The tests of a condition by class, in the condition's order within each. */
  private static final class Builder {
    /** The config's field table, which numbers the tests that keep answers; or null. */
    private final FieldTable table;
    final List<StringListTest> lists = new ArrayList<>();
    final List<NumberBoundTest> bounds = new ArrayList<>();
    final List<KeptAnswerTest> kept = new ArrayList<>();
    final List<FieldTest> others = new ArrayList<>();

    Builder(FieldTable table) {
      this.table = table;
    }

    /** An id for a test whose answer depends on its value alone, or -1 outside a table. */
    private int answerId() {
      return table == null ? -1 : table.answerId();
    }

    void add(ConditionField field, String operator, Object operand) {
      switch (operator) {
        case "$in":
        case "$nin": {
          StringListTest test =
              StringListTest.of(field, answerId(), operator.equals("$in"), (List<?>) operand);
          if (test == null) break;
          lists.add(test);
          return;
        }
        case "$regex":
        case "$regexi": {
          Pattern pattern = ConditionRegex.compile((String) operand, operator.equals("$regexi"));
          // A pattern the checker let through always compiles; should one not, nothing matches.
          kept.add(new KeptAnswerTest(field, answerId(), actual -> {
            String text = ConditionValues.stringForm(actual);
            return ConditionRegex.find(pattern, text);
          }));
          return;
        }
        case "$veq":
        case "$vne":
        case "$vlt":
        case "$vlte":
        case "$vgt":
        case "$vgte": {
          String padded = VersionString.padded(operand);
          IntPredicate wanted = versionTest(operator);
          kept.add(new KeptAnswerTest(field, answerId(),
              actual -> wanted.test(VersionString.padded(actual).compareTo(padded))));
          return;
        }
        case "$lt":
          if (bound(field, operand, -1, -1)) return;
          break;
        case "$lte":
          if (bound(field, operand, -1, 0)) return;
          break;
        case "$gt":
          if (bound(field, operand, 1, 1)) return;
          break;
        case "$gte":
          if (bound(field, operand, 0, 1)) return;
          break;
        default:
          break;
      }
      others.add(new FieldTest(field, operator, operand));
    }

    private boolean bound(ConditionField field, Object operand, int low, int high) {
      if (!(operand instanceof Number)) return false;
      bounds.add(new NumberBoundTest(field, (Number) operand, low, high));
      return true;
    }
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
}
