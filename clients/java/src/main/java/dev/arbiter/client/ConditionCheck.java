package dev.arbiter.client;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Whether the evaluator can read a condition. Unreadable: a condition that is not an object, an
 * unknown operator, an operand of the wrong type, a {@code $regex}/{@code $regexi} that is not a
 * valid pattern, an object mixing operators and field names. The server refuses such a condition
 * at save time; should one reach a client anyway, it matches no one.
 */
final class ConditionCheck {
  private static final Set<String> TYPE_NAMES =
      Set.of("string", "number", "boolean", "null", "object", "array");

  private ConditionCheck() {}

  static boolean isReadable(Object condition) {
    try {
      return conditionOk(condition);
    } catch (RuntimeException | StackOverflowError e) {
      // A condition nested deeper than the stack, or a map that changed while being read.
      return false;
    }
  }

  /** An object whose keys all start with '$' (at least one): operators, not field names. */
  static boolean isOperatorObject(Map<?, ?> value) {
    if (value.isEmpty()) return false;
    for (Object key : value.keySet()) {
      if (!(key instanceof String) || !((String) key).startsWith("$")) return false;
    }
    return true;
  }

  private static boolean hasOperatorKey(Map<?, ?> value) {
    for (Object key : value.keySet()) {
      if (key instanceof String && ((String) key).startsWith("$")) return true;
    }
    return false;
  }

  private static boolean conditionOk(Object condition) {
    if (!(condition instanceof Map)) return false;
    for (Map.Entry<?, ?> entry : ((Map<?, ?>) condition).entrySet()) {
      if (!(entry.getKey() instanceof String)) return false;
      String key = (String) entry.getKey();
      Object value = entry.getValue();
      switch (key) {
        case "$and":
        case "$or":
        case "$nor":
          if (!(value instanceof List)) return false;
          for (Object item : (List<?>) value) {
            if (!conditionOk(item)) return false;
          }
          break;
        case "$not":
          if (!conditionOk(value)) return false;
          break;
        default:
          // Any other key, even one starting with '$', is a field path.
          if (!valueOk(value)) return false;
      }
    }
    return true;
  }

  /** A condition value: a plain value compared by equality, or an operator object. */
  private static boolean valueOk(Object value) {
    if (!(value instanceof Map)) return true;
    Map<?, ?> object = (Map<?, ?>) value;
    if (!hasOperatorKey(object)) return true;
    if (!isOperatorObject(object)) return false;
    for (Map.Entry<?, ?> entry : object.entrySet()) {
      if (!operandOk((String) entry.getKey(), entry.getValue())) return false;
    }
    return true;
  }

  private static boolean operandOk(String operator, Object operand) {
    switch (operator) {
      case "$eq":
      case "$ne":
        return true;
      case "$lt":
      case "$lte":
      case "$gt":
      case "$gte":
      case "$veq":
      case "$vne":
      case "$vgt":
      case "$vgte":
      case "$vlt":
      case "$vlte":
        return operand instanceof String || operand instanceof Number;
      case "$in":
      case "$nin":
      case "$ini":
      case "$nini":
        return operand instanceof List;
      case "$all":
      case "$alli":
        if (!(operand instanceof List)) return false;
        for (Object item : (List<?>) operand) {
          if (!valueOk(item)) return false;
        }
        return true;
      case "$exists":
        return operand instanceof Boolean;
      case "$type":
        return operand instanceof String && TYPE_NAMES.contains(operand);
      case "$inGroup":
      case "$notInGroup":
        return operand instanceof String;
      case "$regex":
      case "$regexi":
        return operand instanceof String
            && ConditionRegex.compile((String) operand, operator.equals("$regexi")) != null;
      case "$not":
      case "$size":
        return valueOk(operand);
      case "$elemMatch":
        if (!(operand instanceof Map)) return false;
        return isOperatorObject((Map<?, ?>) operand) ? valueOk(operand) : conditionOk(operand);
      default:
        return false;
    }
  }
}
