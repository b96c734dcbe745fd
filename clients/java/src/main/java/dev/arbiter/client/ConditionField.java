package dev.arbiter.client;

import java.util.List;
import java.util.Map;

/**
 * A condition's field path, split once at config load: where a prepared test reads its value in
 * a caller's attributes, exactly as {@link ConditionEvaluator#readPath} reads the unsplit path.
 */
final class ConditionField {
  /** A prepared value's slot for a field whose read threw: the condition reading it fails. */
  static final Object UNREADABLE = new Object();
  private static final RuntimeException UNREADABLE_FIELD = new UnreadableField();

  private final String[] parts;
  /** The path's first part, and its second or null: most paths have one part or two. */
  private final String first;
  private final String second;
  /** The field's slot in its config's {@link FieldTable#resolve} arrays, or -1 outside one. */
  final int index;

  ConditionField(String path) {
    this(path, -1);
  }

  ConditionField(String path, int index) {
    this.index = index;
    String[] split = path.split("\\.", -1);
    // Interned: an application's attribute names are usually literals, which Java interns, so
    // the attribute map compares its keys by identity.
    for (int i = 0; i < split.length; i++) split[i] = split[i].intern();
    this.parts = split;
    this.first = split[0];
    this.second = split.length > 1 ? split[1] : null;
  }

  /**
   * The field's value in {@code attributes}, as the evaluator reads it. Small, with the rare
   * cases (a third part, a list on the way) in another method, so that the JIT inlines it into
   * each test: a call per field was most of a five-clause condition's time.
   */
  Object read(Map<String, ?> attributes) {
    Object top = attributes.get(first);
    // A string or a Long, the commonest values, are JSON as they are.
    Object value = top instanceof String || top instanceof Long ? top : ConditionValues.json(top);
    if (second == null || value == null) return value;
    if (parts.length == 2 && value instanceof Map) {
      Object inner = ((Map<?, ?>) value).get(second);
      return inner instanceof String ? inner : ConditionValues.json(inner);
    }
    return readRest(value);
  }

  /**
   * The field's value among a prepared value's resolved fields ({@link FieldTable#resolve}):
   * what {@link #read} returned for the same attributes, or its exception again.
   */
  Object value(Object[] values) {
    Object value = slot(values);
    return value instanceof KeptValue ? ((KeptValue) value).text : value;
  }

  /**
   * {@link #value}, but a short string as its {@link KeptValue}, for a test that keeps its
   * answers there.
   */
  Object slot(Object[] values) {
    Object value = values[index];
    if (value == UNREADABLE) throw UNREADABLE_FIELD;
    return value;
  }

  /** {@link ConditionEvaluator#readPath} from the value of the path's first part. */
  private Object readRest(Object current) {
    for (int i = 1; i < parts.length; i++) {
      String part = parts[i];
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

  /** Thrown again for every condition reading a field whose read threw: no stack to fill. */
  private static final class UnreadableField extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UnreadableField() {
      super("the field could not be read", null, false, false);
    }
  }
}
