package dev.arbiter.client;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * GrowthBook's condition language (MongoDB-style operators) with the semantics shared by every
 * Arbiter evaluator (testdata/conditions.json states them; docs/wire-format.md explains them).
 * A condition is JSON as {@link JsonReader} reads it; attributes are a caller's map.
 *
 * <p>Never throws: a condition {@link ConditionCheck} refuses, or one that is not an object,
 * matches no one whatever the attributes, even under {@code $not} or {@code $nor}.
 */
final class ConditionEvaluator {
  private ConditionEvaluator() {}

  /** Whether the attributes satisfy the condition, with saved groups by key (null: none). */
  static boolean evalCondition(Map<String, ?> attributes, Object condition,
      Map<String, ?> savedGroups) {
    return ConditionCheck.isReadable(condition)
        && CompiledCondition.of((Map<?, ?>) condition).matches(attributes, savedGroups);
  }

  /**
   * {@link #evalCondition} for a condition {@link ConditionCheck#isReadable} has accepted, so
   * that a condition kept in a config is checked once rather than on every evaluation.
   */
  static boolean evalReadable(Map<String, ?> attributes, Map<?, ?> condition,
      Map<String, ?> savedGroups) {
    try {
      return matches(attributes, condition, savedGroups == null ? Map.of() : savedGroups);
    } catch (RuntimeException | StackOverflowError e) {
      // Only attributes nested deeper than the stack, or a map that changed while being read.
      return false;
    }
  }

  private static boolean matches(Object attributes, Map<?, ?> condition, Map<String, ?> groups) {
    for (Map.Entry<?, ?> entry : condition.entrySet()) {
      String key = (String) entry.getKey();
      Object value = entry.getValue();
      switch (key) {
        case "$and":
          for (Object c : (List<?>) value) {
            if (!matches(attributes, (Map<?, ?>) c, groups)) return false;
          }
          break;
        case "$or":
          if (!anyMatches(attributes, (List<?>) value, groups)) return false;
          break;
        case "$nor":
          if (anyMatches(attributes, (List<?>) value, groups)) return false;
          break;
        case "$not":
          if (matches(attributes, (Map<?, ?>) value, groups)) return false;
          break;
        default:
          if (!valueMatches(value, readPath(attributes, key), groups, false)) return false;
      }
    }
    return true;
  }

  // An empty $or passes (and so an empty $nor fails), as in GrowthBook.
  private static boolean anyMatches(Object attributes, List<?> conditions, Map<String, ?> groups) {
    if (conditions.isEmpty()) return true;
    for (Object c : conditions) {
      if (matches(attributes, (Map<?, ?>) c, groups)) return true;
    }
    return false;
  }

  /**
   * The value at a dot path, through objects' own keys, and arrays' canonical indexes in range
   * and {@code length}, as in both GrowthBook SDKs; null when missing (strings have no fields).
   */
  static Object readPath(Object attributes, String path) {
    Object current = attributes;
    int start = 0;
    while (true) {
      int dot = path.indexOf('.', start);
      // A top-level field (no dot) is looked up by the path itself: no substring per call.
      String part = dot < 0 ? (start == 0 ? path : path.substring(start))
          : path.substring(start, dot);
      if (current instanceof Map) {
        // One lookup: a missing key and a key holding null both read as null.
        current = ConditionValues.json(((Map<?, ?>) current).get(part));
      } else if (current instanceof List) {
        current = arrayPart((List<?>) current, part);
      } else {
        return null;
      }
      if (dot < 0 || current == null) return current;
      start = dot + 1;
    }
  }

  /** An array's {@code length}, or its element at a canonical index in range; else null. */
  static Object arrayPart(List<?> array, String part) {
    if (part.equals("length")) return array.size();
    int length = part.length();
    // "0", "1", "12"; not "01", "-1", "+1" or " 1". At most 10 digits: no list is longer.
    if (length == 0 || length > 10 || (length > 1 && part.charAt(0) == '0')) return null;
    for (int i = 0; i < length; i++) {
      char c = part.charAt(i);
      if (c < '0' || c > '9') return null;
    }
    long index = Long.parseLong(part);
    return index < array.size() ? ConditionValues.json(array.get((int) index)) : null;
  }

  /** A condition value against an attribute value: shorthand equality or operators. */
  static boolean valueMatches(Object expected, Object actual, Map<String, ?> groups,
      boolean insensitive) {
    if (expected instanceof String) {
      String text = ConditionValues.stringForm(actual);
      if (text == null) return false;
      return insensitive ? ConditionValues.fold(text).equals(ConditionValues.fold(expected))
          : text.equals(expected);
    }
    if (expected instanceof Number) {
      return ConditionValues.numberForm(actual) == ((Number) expected).doubleValue();
    }
    if (expected instanceof Boolean) {
      return actual != null && ConditionValues.truthy(actual) == (Boolean) expected;
    }
    if (expected instanceof Map && ConditionCheck.isOperatorObject((Map<?, ?>) expected)) {
      for (Map.Entry<?, ?> op : ((Map<?, ?>) expected).entrySet()) {
        if (!operatorMatches((String) op.getKey(), actual, op.getValue(), groups)) return false;
      }
      return true;
    }
    return ConditionValues.sameValue(actual, expected);
  }

  static boolean operatorMatches(String operator, Object actual, Object expected,
      Map<String, ?> groups) {
    switch (operator) {
      case "$eq": return ConditionValues.sameValue(actual, expected);
      case "$ne": return !ConditionValues.sameValue(actual, expected);
      case "$lt": return ordered(actual, expected, -1, -1);
      case "$lte": return ordered(actual, expected, -1, 0);
      case "$gt": return ordered(actual, expected, 1, 1);
      case "$gte": return ordered(actual, expected, 0, 1);
      case "$veq": return versionOrder(actual, expected) == 0;
      case "$vne": return versionOrder(actual, expected) != 0;
      case "$vlt": return versionOrder(actual, expected) < 0;
      case "$vlte": return versionOrder(actual, expected) <= 0;
      case "$vgt": return versionOrder(actual, expected) > 0;
      case "$vgte": return versionOrder(actual, expected) >= 0;
      case "$in": return isIn(actual, (List<?>) expected, false);
      case "$nin": return !isIn(actual, (List<?>) expected, false);
      case "$ini": return isIn(actual, (List<?>) expected, true);
      case "$nini": return !isIn(actual, (List<?>) expected, true);
      case "$inGroup": return isIn(actual, groupValues(groups, (String) expected), false);
      case "$notInGroup": return !isIn(actual, groupValues(groups, (String) expected), false);
      case "$all": return containsAll(actual, (List<?>) expected, groups, false);
      case "$alli": return containsAll(actual, (List<?>) expected, groups, true);
      case "$exists": return (actual != null) == (Boolean) expected;
      case "$type": return ConditionValues.typeName(actual).equals(expected);
      case "$size":
        return actual instanceof List
            && valueMatches(expected, (double) ((List<?>) actual).size(), groups, false);
      case "$elemMatch": return elementMatches(actual, (Map<?, ?>) expected, groups);
      case "$not": return !valueMatches(expected, actual, groups, false);
      case "$regex":
      case "$regexi": {
        String text = ConditionValues.stringForm(actual);
        Pattern pattern = ConditionRegex.compile((String) expected, operator.equals("$regexi"));
        return ConditionRegex.find(pattern, text);
      }
      default:
        // ConditionCheck refuses every other operator before evaluation starts.
        return false;
    }
  }

  /** Whether the order of actual to expected is between low and high (-1, 0 or 1). */
  static boolean ordered(Object actual, Object expected, int low, int high) {
    int order = ConditionValues.compare(actual, expected);
    return order != ConditionValues.UNORDERED && order >= low && order <= high;
  }

  private static int versionOrder(Object actual, Object expected) {
    return VersionString.paddedCached(actual).compareTo(VersionString.paddedCached(expected));
  }

  // An array attribute is in the list when any of its elements is.
  private static boolean isIn(Object actual, List<?> list, boolean insensitive) {
    if (actual instanceof List) {
      for (Object element : (List<?>) actual) {
        if (inList(ConditionValues.json(element), list, insensitive)) return true;
      }
      return false;
    }
    return inList(actual, list, insensitive);
  }

  private static boolean inList(Object value, List<?> list, boolean insensitive) {
    Object folded = insensitive ? ConditionValues.fold(value) : value;
    for (Object item : list) {
      Object other = insensitive ? ConditionValues.fold(ConditionValues.json(item)) : item;
      if (ConditionValues.sameValue(folded, other)) return true;
    }
    return false;
  }

  /** A saved group's values; a missing group, or one that is not a list, is empty. */
  private static List<?> groupValues(Map<String, ?> groups, String key) {
    Object values = ConditionValues.json(groups.get(key));
    return values instanceof List ? (List<?>) values : List.of();
  }

  private static boolean containsAll(Object actual, List<?> expected, Map<String, ?> groups,
      boolean insensitive) {
    if (!(actual instanceof List)) return false;
    List<?> elements = (List<?>) actual;
    for (Object want : expected) {
      boolean found = false;
      for (Object element : elements) {
        if (valueMatches(want, ConditionValues.json(element), groups, insensitive)) {
          found = true;
          break;
        }
      }
      if (!found) return false;
    }
    return true;
  }

  private static boolean elementMatches(Object actual, Map<?, ?> expected, Map<String, ?> groups) {
    if (!(actual instanceof List)) return false;
    boolean operators = ConditionCheck.isOperatorObject(expected);
    for (Object raw : (List<?>) actual) {
      Object element = ConditionValues.json(raw);
      // Null elements are skipped, as both GrowthBook SDKs skip them.
      if (element == null) continue;
      if (operators ? valueMatches(expected, element, groups, false)
          : matches(element, expected, groups)) {
        return true;
      }
    }
    return false;
  }
}
