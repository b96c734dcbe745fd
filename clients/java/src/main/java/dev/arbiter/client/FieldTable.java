package dev.arbiter.client;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The field paths the compiled conditions of one config version read, numbered 1..n in the
 * order first met: what a {@link PreparedAttributes} resolves once per config version, so that
 * a condition reads slot {@code i} of an array instead of a caller's map (the reads,
 * not the tests, were most of a condition's cost). Slot 0 holds the table itself, so one array
 * tells which config version it was resolved for.
 *
 * <p>Filled while {@link ConfigStore#replace} compiles the config, on one thread, then never
 * changed (but for its {@link KeptStrings}, which need no lock): the snapshot that holds it is
 * published through a volatile reference, which makes the filled table visible to every reader.
 * Compared by identity: a new config version is a new table, so a prepared value's cached
 * resolution never serves another version.
 */
final class FieldTable {
  private final List<ConditionField> fields = new ArrayList<>();
  private final Map<String, ConditionField> byPath = new HashMap<>();
  private final KeptStrings strings = new KeptStrings();
  private int answerIds;

  /** The field of {@code path}, numbered when first asked for; the same field after that. */
  ConditionField field(String path) {
    ConditionField field = byPath.get(path);
    if (field == null) {
      field = new ConditionField(path, fields.size() + 1);
      fields.add(field);
      byPath.put(path, field);
    }
    return field;
  }

  int size() {
    return fields.size();
  }

  /**
   * A new id for a test whose answer depends on its field's value alone, under which
   * {@link KeptValue}s keep its answers; -1 once {@link KeptValue#MAX_TESTS} are given (that test
   * then computes its answer on every call, as on the map path).
   */
  int answerId() {
    return answerIds < KeptValue.MAX_TESTS ? answerIds++ : -1;
  }

  /**
   * This table in slot 0, then every field's value in {@code attributes} in its slot, as
   * {@link ConditionField#read} reads it, a short string as the {@link KeptValue} this table
   * keeps of it ({@link KeptStrings}); a read that throws leaves
   * {@link ConditionField#UNREADABLE} in its slot, so that only the conditions reading that
   * field fail, as each would have failed reading the map.
   */
  Object[] resolve(Map<String, ?> attributes) {
    Object[] values = new Object[fields.size() + 1];
    values[0] = this;
    for (int i = 1; i < values.length; i++) {
      try {
        values[i] = strings.kept(fields.get(i - 1).read(attributes));
      } catch (RuntimeException | StackOverflowError e) {
        values[i] = ConditionField.UNREADABLE;
      }
    }
    return values;
  }
}
