package dev.arbiter.client;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
  private final Map<?, ?> interpreted;
  /** One test per operator, each with its field path; one class, so the loop's call inlines. */
  private final FieldTest[] tests;

  private CompiledCondition(Map<?, ?> interpreted, FieldTest[] tests) {
    this.interpreted = interpreted;
    this.tests = tests;
  }

  /** Prepares a condition {@link ConditionCheck#isReadable} has accepted. */
  static CompiledCondition of(Map<?, ?> condition) {
    List<FieldTest> tests = new ArrayList<>();
    for (Map.Entry<?, ?> entry : condition.entrySet()) {
      String key = (String) entry.getKey();
      Object value = entry.getValue();
      if (key.equals("$and") || key.equals("$or") || key.equals("$nor") || key.equals("$not")) {
        return new CompiledCondition(condition, null);
      }
      String[] path = path(key);
      if (value instanceof Map && ConditionCheck.isOperatorObject((Map<?, ?>) value)) {
        for (Map.Entry<?, ?> op : ((Map<?, ?>) value).entrySet()) {
          tests.add(FieldTest.of(path, (String) op.getKey(), op.getValue()));
        }
      } else {
        tests.add(FieldTest.value(path, value));
      }
    }
    return new CompiledCondition(null, tests.toArray(new FieldTest[0]));
  }

  /**
   * A field path split on dots, its parts interned: an application's attribute names are
   * usually literals, which Java interns, so the attribute map's key comparison is one of
   * identity.
   */
  private static String[] path(String key) {
    String[] parts = key.split("\\.", -1);
    for (int i = 0; i < parts.length; i++) parts[i] = parts[i].intern();
    return parts;
  }

  /** Whether the attributes satisfy the condition. Never throws. */
  boolean matches(Map<String, ?> attributes, Map<String, ?> savedGroups) {
    Map<String, ?> groups = savedGroups == null ? Map.of() : savedGroups;
    if (interpreted != null) return ConditionEvaluator.evalReadable(attributes, interpreted, groups);
    try {
      // The field reads and the commonest tests written out here, not called: a call per read
      // and per test (each too big for the JIT to inline) was half of a five-clause condition's
      // time (issue 29's speed goal, bench/java-client/RESULTS.md).
      for (FieldTest test : tests) {
        Object actual = attributes.get(test.first);
        if (actual instanceof String) {
          if (test.second != null) actual = null;
        } else {
          actual = test.readFrom(actual);
        }
        boolean pass;
        if (test.kind == FieldTest.REMEMBERED) {
          pass = test.answers.test(actual);
        } else if (test.kind == FieldTest.IN || test.kind == FieldTest.NOT_IN) {
          pass = (actual instanceof String ? test.containsOne((String) actual)
              : test.containsString(actual)) == (test.kind == FieldTest.IN);
        } else {
          pass = test.test(actual, groups);
        }
        if (!pass) return false;
      }
      return true;
    } catch (RuntimeException | StackOverflowError e) {
      // Only attributes nested deeper than the stack, or a map that changed while being read.
      return false;
    }
  }

  /** {@link ConditionEvaluator#readPath} over a path split beforehand, from {@code current}. */
  private static Object read(Object current, String[] path, int from) {
    for (int i = from; i < path.length; i++) {
      String part = path[i];
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

  /** {@link ConditionValues#json} with its two commonest answers first, small enough to inline. */
  private static Object json(Object value) {
    return value instanceof String || value instanceof Long ? value : ConditionValues.json(value);
  }

  /**
   * One operator of one field, prepared: which kind of test, and its operand in the form that
   * test reads. A switch on the kind, rather than one class per operator, keeps the call in
   * {@link #matches} to one class the JIT can inline (issue 29's speed goal).
   */
  static final class FieldTest {
    static final int IN = 0;
    static final int NOT_IN = 1;
    static final int REMEMBERED = 2;
    private static final int NUMBER_ORDER = 3;
    private static final int ORDER = 4;
    private static final int NEVER = 5;
    private static final int OPERATOR = 6;
    private static final int VALUE = 7;

    final String[] path;
    /** The path's first part, and its second or null: most paths have one part or two. */
    final String first;
    final String second;
    final int kind;
    private final String operator;
    private final Object operand;
    /** IN, NOT_IN: the list's strings (interned), or null for a set of many. */
    private final String[] strings;
    private final Set<String> stringSet;
    /** NUMBER_ORDER, ORDER: the orders ({@link ConditionValues#compare}) that pass. */
    private final int low;
    private final int high;
    private final double number;
    final Answers answers;

    private FieldTest(String[] path, int kind, String operator, Object operand, String[] strings,
        Set<String> stringSet, int low, int high, Answers answers) {
      this.path = path;
      this.first = path[0];
      this.second = path.length > 1 ? path[1] : null;
      this.kind = kind;
      this.operator = operator;
      this.operand = operand;
      this.strings = strings;
      this.stringSet = stringSet;
      this.low = low;
      this.high = high;
      this.number = operand instanceof Number ? ((Number) operand).doubleValue() : Double.NaN;
      this.answers = answers;
    }

    static FieldTest value(String[] path, Object value) {
      return new FieldTest(path, VALUE, null, value, null, null, 0, 0, null);
    }

    static FieldTest of(String[] path, String operator, Object operand) {
      switch (operator) {
        case "$in":
        case "$nin": {
          String[] strings = stringsOnly(operand);
          if (strings == null) break;
          // A few strings compare faster one by one than through a hash.
          boolean few = strings.length <= MAX_LISTED;
          return new FieldTest(path, operator.equals("$in") ? IN : NOT_IN, operator, operand,
              few ? strings : null, few ? null : new HashSet<>(Arrays.asList(strings)), 0, 0,
              null);
        }
        case "$regex":
        case "$regexi": {
          Pattern pattern = ConditionRegex.compile((String) operand, operator.equals("$regexi"));
          if (pattern == null) {
            return new FieldTest(path, NEVER, operator, operand, null, null, 0, 0, null);
          }
          return remembering(path, operator, operand, actual -> {
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
          return remembering(path, operator, operand,
              actual -> wanted.test(VersionString.padded(actual).compareTo(padded)));
        }
        case "$lt":
          return ordering(path, operator, operand, -1, -1);
        case "$lte":
          return ordering(path, operator, operand, -1, 0);
        case "$gt":
          return ordering(path, operator, operand, 1, 1);
        case "$gte":
          return ordering(path, operator, operand, 0, 1);
        default:
          break;
      }
      return new FieldTest(path, OPERATOR, operator, operand, null, null, 0, 0, null);
    }

    private static FieldTest remembering(String[] path, String operator, Object operand,
        Predicate<Object> test) {
      return new FieldTest(path, REMEMBERED, operator, operand, null, null, 0, 0,
          new Answers(test));
    }

    private static FieldTest ordering(String[] path, String operator, Object operand, int low,
        int high) {
      return new FieldTest(path, operand instanceof Number ? NUMBER_ORDER : ORDER, operator,
          operand, null, null, low, high, null);
    }

    /**
     * The field's value in {@code attributes}, as the evaluator reads it. Kept small, with the
     * rare cases (a third part, a list on the way) in another method, so that the JIT inlines it
     * into the loop: a call per field was most of a five-clause condition's time (issue 29).
     */
    Object read(Map<String, ?> attributes) {
      return readFrom(attributes.get(first));
    }

    /** {@link #read} from the value of the path's first part. */
    Object readFrom(Object top) {
      Object value = json(top);
      if (second == null || value == null) return value;
      if (path.length == 2 && value instanceof Map) return json(((Map<?, ?>) value).get(second));
      return CompiledCondition.read(value, path, 1);
    }

    /** Whether the field's value passes: the commonest kinds here, small; the rest apart. */
    boolean test(Object actual, Map<String, ?> groups) {
      switch (kind) {
        case IN:
          return actual instanceof String ? containsOne((String) actual) : containsString(actual);
        case NOT_IN:
          return actual instanceof String ? !containsOne((String) actual) : !containsString(actual);
        case REMEMBERED:
          return answers.test(actual);
        case NUMBER_ORDER:
          if (actual instanceof Long) return inOrder(((Long) actual).doubleValue());
          if (actual instanceof Number) return inOrder(((Number) actual).doubleValue());
          return ConditionEvaluator.ordered(actual, operand, low, high);
        default:
          return testOther(actual, groups);
      }
    }

    // As ConditionValues.compare: a number against a number, NaN in no order.
    private boolean inOrder(double value) {
      int order = value < number ? -1 : value > number ? 1 : value == number ? 0 : 2;
      return order >= low && order <= high;
    }

    private boolean testOther(Object actual, Map<String, ?> groups) {
      switch (kind) {
        case ORDER:
          return ConditionEvaluator.ordered(actual, operand, low, high);
        case NEVER:
          return false;
        case OPERATOR:
          return ConditionEvaluator.operatorMatches(operator, actual, operand, groups);
        default:
          return ConditionEvaluator.valueMatches(operand, actual, groups, false);
      }
    }

    // As the evaluator's $in: a string equals a string item; an array is in when an element is.
    boolean containsString(Object actual) {
      if (actual instanceof String) return containsOne((String) actual);
      if (actual instanceof List) {
        for (Object element : (List<?>) actual) {
          Object value = ConditionValues.json(element);
          if (value instanceof String && containsOne((String) value)) return true;
        }
      }
      return false;
    }

    boolean containsOne(String value) {
      if (strings == null) return stringSet.contains(value);
      for (String s : strings) {
        if (s.equals(value)) return true;
      }
      return false;
    }
  }

  /** Lists of at most this many strings are compared one by one. */
  private static final int MAX_LISTED = 8;

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
   * A test that depends on its value alone, with its answers for attribute strings kept: the
   * strings that regexes and versions read (locales, countries, app versions) repeat from user
   * to user, so a lookup replaces a regex search or a version padding. A table of
   * {@value #SLOTS} immutable entries in pairs (a string may sit in either slot of its pair, so
   * two strings of one pair do not keep replacing each other: with one slot each, 6 of the
   * bench's 91 app versions did, and each of their calls padded its version again), a new
   * string taking the older entry's place: bounded, and read without a lock (an entry is
   * published whole, and a lost write only costs a recomputation).
   */
  static final class Answers {
    private static final int PAIR_BITS = 9;
    private static final int SLOTS = 2 << PAIR_BITS;

    private static final class Entry {
      final String key;
      final boolean answer;

      Entry(String key, boolean answer) {
        this.key = key;
        this.answer = answer;
      }
    }

    private final Entry[] slots = new Entry[SLOTS];
    private final Predicate<Object> compute;

    Answers(Predicate<Object> compute) {
      this.compute = compute;
    }

    boolean test(Object actual) {
      if (!(actual instanceof String)) return compute.test(actual);
      String text = (String) actual;
      int h = text.hashCode();
      // A multiplicative hash: Java's string hashes of "2.4.0" and "2.4.1" differ in the low
      // bits only, which a mask of them would put in one pair.
      int slot = (h * 0x9E3779B9) >>> (32 - PAIR_BITS) << 1;
      Entry entry = slots[slot];
      if (entry != null && entry.key.equals(text)) return entry.answer;
      Entry other = slots[slot + 1];
      if (other != null && other.key.equals(text)) return other.answer;
      return remember(text, slot, entry);
    }

    // The pair's first slot holds the newer entry: the older one moves to the second.
    private boolean remember(String text, int slot, Entry first) {
      boolean answer = compute.test(text);
      if (first != null) slots[slot + 1] = first;
      slots[slot] = new Entry(text, answer);
      return answer;
    }
  }

  /** The list's items, interned, when every one is a string; else null (the evaluator's then). */
  private static String[] stringsOnly(Object operand) {
    List<?> items = (List<?>) operand;
    String[] strings = new String[items.size()];
    for (int i = 0; i < strings.length; i++) {
      if (!(items.get(i) instanceof String)) return null;
      strings[i] = ((String) items.get(i)).intern();
    }
    return strings;
  }
}
