package dev.arbiter.client;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * How the condition language reads attribute values: their string and number forms,
 * truthiness, equality and order. GrowthBook's JavaScript evaluator takes these from
 * JavaScript's coercions; the shared rules (testdata/conditions.json) keep the part every client
 * language can reproduce, and this class writes them out in Java.
 *
 * <p>Values are JSON as {@link JsonReader} produces them, or as a caller's attribute map holds
 * them: any {@link Number} is a number (compared by its double value, as JavaScript holds every
 * number, so {@code 1L} equals {@code 1.0}), a {@link CharSequence} or {@link Character} a string,
 * a {@link Map} an object, a {@link List} (any {@link Collection}, or an {@code Object[]}) an
 * array.
 * Any other object is opaque: it has no string or number form and equals nothing.
 */
final class ConditionValues {
  /** The result of {@link #compare} when the two values have no order (NaN, arrays, objects). */
  static final int UNORDERED = Integer.MIN_VALUE;

  private static final Pattern DECIMAL =
      Pattern.compile("[+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?");
  // Below 2^53 every integer is a double of its own, so its digits are already the shortest.
  private static final double TWO_POW_53 = 0x1p53;

  private ConditionValues() {}

  /** A caller's value as the evaluator's JSON kinds (strings, lists); others pass as they are. */
  static Object json(Object value) {
    if (value == null || value instanceof String || value instanceof Number
        || value instanceof Boolean || value instanceof Map || value instanceof List) {
      return value;
    }
    if (value instanceof CharSequence || value instanceof Character) return value.toString();
    if (value instanceof Collection) return new ArrayList<>((Collection<?>) value);
    if (value instanceof Object[]) return Arrays.asList((Object[]) value);
    return value;
  }

  static boolean isObject(Object value) {
    return value instanceof Map;
  }

  static boolean isArray(Object value) {
    return value instanceof List;
  }

  /**
   * The string a value reads as where a string is expected: a string itself, a number as
   * JavaScript prints it, {@code true} or {@code false}; null, arrays and objects have none.
   */
  static String stringForm(Object value) {
    if (value instanceof String) return (String) value;
    if (value instanceof Number) return numberToString(((Number) value).doubleValue());
    if (value instanceof Boolean) return value.toString();
    return null;
  }

  /**
   * The number a value reads as where a number is expected: null (missing) is 0, booleans 1
   * and 0, a string only when it is a plain decimal in full; anything else is NaN.
   */
  static double numberForm(Object value) {
    if (value == null) return 0;
    if (value instanceof Number) return ((Number) value).doubleValue();
    if (value instanceof Boolean) return (Boolean) value ? 1 : 0;
    if (value instanceof String) {
      String text = (String) value;
      return DECIMAL.matcher(text).matches() ? Double.parseDouble(text) : Double.NaN;
    }
    return Double.NaN;
  }

  /** JavaScript truthiness over JSON values: "", 0, NaN, false and null are false. */
  static boolean truthy(Object value) {
    if (value == null) return false;
    if (value instanceof String) return !((String) value).isEmpty();
    if (value instanceof Number) {
      double d = ((Number) value).doubleValue();
      return d != 0 && !Double.isNaN(d);
    }
    if (value instanceof Boolean) return (Boolean) value;
    return true;
  }

  /** {@code $type}'s name of a value; an opaque object is an "object". */
  static String typeName(Object value) {
    if (value == null) return "null";
    if (value instanceof String) return "string";
    if (value instanceof Number) return "number";
    if (value instanceof Boolean) return "boolean";
    if (value instanceof List) return "array";
    return "object";
  }

  /**
   * Equality of two JSON values: same kind and value; numbers by value (0 equals -0, NaN equals
   * nothing); arrays element by element; objects by their keys in any order.
   */
  static boolean sameValue(Object a, Object b) {
    a = json(a);
    b = json(b);
    if (a == null || b == null) return a == b;
    if (a instanceof Number) {
      return b instanceof Number && ((Number) a).doubleValue() == ((Number) b).doubleValue();
    }
    if (a instanceof String || a instanceof Boolean) return a.equals(b);
    if (a instanceof List) {
      if (!(b instanceof List)) return false;
      List<?> x = (List<?>) a;
      List<?> y = (List<?>) b;
      if (x.size() != y.size()) return false;
      for (int i = 0; i < x.size(); i++) {
        if (!sameValue(x.get(i), y.get(i))) return false;
      }
      return true;
    }
    if (a instanceof Map) {
      if (!(b instanceof Map)) return false;
      Map<?, ?> x = (Map<?, ?>) a;
      Map<?, ?> y = (Map<?, ?>) b;
      if (x.size() != y.size()) return false;
      for (Map.Entry<?, ?> e : x.entrySet()) {
        if (!y.containsKey(e.getKey()) || !sameValue(e.getValue(), y.get(e.getKey()))) return false;
      }
      return true;
    }
    return false;
  }

  /**
   * The ordering operators: two strings by UTF-16 code units; otherwise both sides read as
   * numbers. An array or object on either side, or a NaN, gives {@link #UNORDERED}.
   */
  static int compare(Object actual, Object expected) {
    if (actual instanceof String && expected instanceof String) {
      return Integer.signum(((String) actual).compareTo((String) expected));
    }
    if (!isScalar(actual) || !isScalar(expected)) return UNORDERED;
    double a = numberForm(actual);
    double b = numberForm(expected);
    if (a < b) return -1;
    if (a > b) return 1;
    return a == b ? 0 : UNORDERED;
  }

  private static boolean isScalar(Object value) {
    return value == null || value instanceof String || value instanceof Number
        || value instanceof Boolean;
  }

  /** Lowercase with the locale-independent Unicode mapping, as JavaScript's toLowerCase. */
  static Object fold(Object value) {
    return value instanceof String ? ((String) value).toLowerCase(Locale.ROOT) : value;
  }

  /**
   * A number as ECMAScript's Number.prototype.toString prints it: the shortest digits that read
   * back as the same double, plain from 1e-7 up to 1e21, else with an exponent ({@code 1e+21},
   * {@code 1.5e-7}); {@code -0} is "0".
   */
  static String numberToString(double d) {
    if (Double.isNaN(d)) return "NaN";
    if (Double.isInfinite(d)) return d > 0 ? "Infinity" : "-Infinity";
    if (d == 0) return "0";
    if (d == Math.rint(d) && Math.abs(d) < TWO_POW_53) return Long.toString((long) d);
    BigDecimal shortest = shortestDigits(d);
    String digits = shortest.unscaledValue().abs().toString();
    int k = digits.length();
    int n = k - shortest.scale();
    StringBuilder out = new StringBuilder();
    if (d < 0) out.append('-');
    if (k <= n && n <= 21) {
      out.append(digits);
      for (int i = k; i < n; i++) out.append('0');
    } else if (0 < n && n <= 21) {
      out.append(digits, 0, n).append('.').append(digits, n, k);
    } else if (-6 < n && n <= 0) {
      out.append("0.");
      for (int i = n; i < 0; i++) out.append('0');
      out.append(digits);
    } else {
      out.append(digits.charAt(0));
      if (k > 1) out.append('.').append(digits, 1, k);
      int e = n - 1;
      out.append('e').append(e < 0 ? '-' : '+').append(Math.abs(e));
    }
    return out.toString();
  }

  /**
   * The fewest significant digits that read back as {@code d}, trailing zeros stripped, and of
   * those the closest to {@code d}. Double.toString reads back but is not always the shortest
   * before Java 19, so shorter roundings of it are tried first; the exact value is rounded once,
   * at the length found (rounding a 700-digit exact value at every length is slow).
   */
  private static BigDecimal shortestDigits(double d) {
    BigDecimal readsBack = new BigDecimal(Double.toString(d)).stripTrailingZeros();
    BigDecimal shortest = readsBack;
    for (int precision = 1; precision < readsBack.precision(); precision++) {
      BigDecimal rounded = readsBack.round(new MathContext(precision, RoundingMode.HALF_EVEN));
      if (rounded.doubleValue() == d) {
        shortest = rounded;
        break;
      }
    }
    MathContext length = new MathContext(shortest.precision(), RoundingMode.HALF_EVEN);
    BigDecimal closest = new BigDecimal(d).round(length);
    return (closest.doubleValue() == d ? closest : shortest).stripTrailingZeros();
  }
}
