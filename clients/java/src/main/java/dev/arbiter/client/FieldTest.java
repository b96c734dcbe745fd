package dev.arbiter.client;

import java.util.Map;

/**
 * A prepared condition's test of one field that no faster kind covers: an operator left to
 * {@link ConditionEvaluator#operatorMatches}, an ordering against a string, or a plain value
 * compared as {@link ConditionEvaluator#valueMatches} compares it.
 */
final class FieldTest {
  final ConditionField field;
  /** The operator, or null for a plain value. */
  private final String operator;
  private final Object operand;

  FieldTest(ConditionField field, String operator, Object operand) {
    this.field = field;
    this.operator = operator;
    this.operand = operand;
  }

  /** The test of {@link #field}'s value, read from a map or a prepared value's slots. */
  boolean test(Object actual, Map<String, ?> groups) {
    return operator == null ? ConditionEvaluator.valueMatches(operand, actual, groups, false)
        : ConditionEvaluator.operatorMatches(operator, actual, operand, groups);
  }
}
