package dev.arbiter.client;

import java.util.Map;

/**
 * A prepared condition's test of one field that no faster kind covers: an operator left to
 * {@link ConditionEvaluator#operatorMatches}, an ordering against a string, or a plain value
 * compared as {@link ConditionEvaluator#valueMatches} compares it.
 */
final class FieldTest {
  private final ConditionField field;
  /** The operator, or null for a plain value. */
  private final String operator;
  private final Object operand;

  FieldTest(ConditionField field, String operator, Object operand) {
    this.field = field;
    this.operator = operator;
    this.operand = operand;
  }

  boolean test(Map<String, ?> attributes, Map<String, ?> groups) {
    Object actual = field.read(attributes);
    return operator == null ? ConditionEvaluator.valueMatches(operand, actual, groups, false)
        : ConditionEvaluator.operatorMatches(operator, actual, operand, groups);
  }

  /** {@link #test(Map, Map)} over a prepared value's resolved fields. */
  boolean test(Object[] values, Map<String, ?> groups) {
    Object actual = field.value(values);
    return operator == null ? ConditionEvaluator.valueMatches(operand, actual, groups, false)
        : ConditionEvaluator.operatorMatches(operator, actual, operand, groups);
  }
}
