package dev.arbiter.client;

import java.util.Collection;
import java.util.Map;

/**
 * Writes the values {@link JsonReader} produces (and the boxed numbers, strings, maps and
 * collections callers put in event payloads) as compact JSON. Non-ASCII text is written as is
 * (the body is UTF-8); a lone surrogate, which UTF-8 cannot carry, is escaped as {@code \\uXXXX}
 * like JavaScript's JSON.stringify does. Non-finite numbers and unknown types are refused, so a
 * bad payload fails at {@code track}, not in the middle of a batch.
 */
final class JsonWriter {
  private JsonWriter() {}

  static String write(Object value) {
    StringBuilder out = new StringBuilder();
    write(value, out, 0);
    return out.toString();
  }

  static void write(Object value, StringBuilder out, int depth) {
    if (depth > JsonReader.MAX_DEPTH) {
      throw new IllegalArgumentException("JSON: nesting deeper than " + JsonReader.MAX_DEPTH);
    }
    if (value == null) {
      out.append("null");
    } else if (value instanceof String) {
      writeString((String) value, out);
    } else if (value instanceof Boolean) {
      out.append(value.toString());
    } else if (value instanceof Double || value instanceof Float) {
      writeDouble(((Number) value).doubleValue(), out);
    } else if (value instanceof Long || value instanceof Integer || value instanceof Short
        || value instanceof Byte) {
      out.append(((Number) value).longValue());
    } else if (value instanceof java.math.BigDecimal || value instanceof java.math.BigInteger) {
      out.append(value.toString());
    } else if (value instanceof Map) {
      out.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
        if (!(e.getKey() instanceof String)) {
          throw new IllegalArgumentException("JSON: object keys must be strings");
        }
        if (!first) out.append(',');
        first = false;
        writeString((String) e.getKey(), out);
        out.append(':');
        write(e.getValue(), out, depth + 1);
      }
      out.append('}');
    } else if (value instanceof Collection) {
      out.append('[');
      boolean first = true;
      for (Object item : (Collection<?>) value) {
        if (!first) out.append(',');
        first = false;
        write(item, out, depth + 1);
      }
      out.append(']');
    } else {
      throw new IllegalArgumentException(
          "JSON: cannot write a " + value.getClass().getName());
    }
  }

  private static void writeDouble(double d, StringBuilder out) {
    if (Double.isNaN(d) || Double.isInfinite(d)) {
      throw new IllegalArgumentException("JSON: numbers must be finite");
    }
    if (d == Math.rint(d) && Math.abs(d) < 1e15) {
      // 19.0 is written 19, as JavaScript writes it; -0.0 as 0.
      out.append((long) d);
    } else {
      out.append(d);
    }
  }

  static void writeString(String s, StringBuilder out) {
    out.append('"');
    int n = s.length();
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"': out.append("\\\""); break;
        case '\\': out.append("\\\\"); break;
        case '\n': out.append("\\n"); break;
        case '\r': out.append("\\r"); break;
        case '\t': out.append("\\t"); break;
        case '\b': out.append("\\b"); break;
        case '\f': out.append("\\f"); break;
        default:
          if (c < 0x20 || isLoneSurrogate(s, i)) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
      }
    }
    out.append('"');
  }

  private static boolean isLoneSurrogate(String s, int i) {
    char c = s.charAt(i);
    if (Character.isHighSurrogate(c)) {
      return !(i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1)));
    }
    if (Character.isLowSurrogate(c)) {
      return !(i > 0 && Character.isHighSurrogate(s.charAt(i - 1)));
    }
    return false;
  }
}
