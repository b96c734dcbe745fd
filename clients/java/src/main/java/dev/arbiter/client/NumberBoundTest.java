package dev.arbiter.client;

/**
 * {@code $lt}, {@code $lte}, {@code $gt} or {@code $gte} against a number, as the evaluator
 * orders (ConditionValues#compare): a number attribute by its double value, anything else
 * through the evaluator.
 */
final class NumberBoundTest {
  final ConditionField field;
  private final Number operand;
  private final double bound;
  /** The orders (-1, 0, 1 as {@link ConditionValues#compare}) that pass. */
  private final int low;
  private final int high;

  NumberBoundTest(ConditionField field, Number operand, int low, int high) {
    this.field = field;
    this.operand = operand;
    this.bound = operand.doubleValue();
    this.low = low;
    this.high = high;
  }

  /** The test of {@link #field}'s value, read from a map or a prepared value's slots. */
  boolean test(Object actual) {
    if (actual instanceof Long) return inOrder(((Long) actual).doubleValue());
    if (actual instanceof Number) return inOrder(((Number) actual).doubleValue());
    return ConditionEvaluator.ordered(actual, operand, low, high);
  }

  // A NaN on either side is in no order (2), which no operator passes.
  private boolean inOrder(double value) {
    int order = value < bound ? -1 : value > bound ? 1 : value == bound ? 0 : 2;
    return order >= low && order <= high;
  }
}
