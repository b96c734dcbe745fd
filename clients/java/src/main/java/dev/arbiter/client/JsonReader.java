package dev.arbiter.client;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict RFC 8259 reader for what the API and the offline store hold. Objects become
 * insertion-ordered {@code Map<String, Object>}, arrays {@code List<Object>}, numbers
 * {@code Long} when integral and within range, else {@code Double}; {@code null} is Java null.
 * Nesting is limited so that a hostile body cannot exhaust the stack.
 */
final class JsonReader {
  static final int MAX_DEPTH = 64;

  private final String text;
  private int pos;

  private JsonReader(String text) {
    this.text = text;
  }

  /** Parses one JSON value; anything but whitespace after it is an error. */
  static Object parse(String text) {
    JsonReader reader = new JsonReader(text);
    reader.skipWhitespace();
    Object value = reader.readValue(0);
    reader.skipWhitespace();
    if (reader.pos != text.length()) throw reader.error("unexpected text after the value");
    return value;
  }

  private Object readValue(int depth) {
    if (pos >= text.length()) throw error("unexpected end of input");
    char c = text.charAt(pos);
    switch (c) {
      case '{':
        return readObject(depth + 1);
      case '[':
        return readArray(depth + 1);
      case '"':
        return readString();
      case 't':
        expectWord("true");
        return Boolean.TRUE;
      case 'f':
        expectWord("false");
        return Boolean.FALSE;
      case 'n':
        expectWord("null");
        return null;
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return readNumber();
        throw error("unexpected character '" + c + "'");
    }
  }

  private Map<String, Object> readObject(int depth) {
    Map<String, Object> out = new LinkedHashMap<>();
    if (opensEmpty(depth, '}')) return out;
    do {
      skipWhitespace();
      if (peek() != '"') throw error("expected a member name");
      String key = readString();
      skipWhitespace();
      if (peek() != ':') throw error("expected ':'");
      pos++;
      skipWhitespace();
      out.put(key, readValue(depth));
    } while (!closes('}'));
    return out;
  }

  private List<Object> readArray(int depth) {
    List<Object> out = new ArrayList<>();
    if (opensEmpty(depth, ']')) return out;
    do {
      skipWhitespace();
      out.add(readValue(depth));
    } while (!closes(']'));
    return out;
  }

  /** Steps into an object or array at {@code depth}: true, past {@code close}, when it is empty. */
  private boolean opensEmpty(int depth, char close) {
    if (depth > MAX_DEPTH) throw error("nesting deeper than " + MAX_DEPTH);
    pos++;
    skipWhitespace();
    if (peek() != close) return false;
    pos++;
    return true;
  }

  /** After a member or element: true past {@code close}, false past a ',' (another follows). */
  private boolean closes(char close) {
    skipWhitespace();
    char c = peek();
    pos++;
    if (c == close) return true;
    if (c != ',') throw error("expected ',' or '" + close + "'");
    return false;
  }

  private String readString() {
    pos++;
    StringBuilder out = null;
    int start = pos;
    while (true) {
      if (pos >= text.length()) throw error("unterminated string");
      char c = text.charAt(pos);
      if (c == '"') {
        String tail = text.substring(start, pos);
        pos++;
        return out == null ? tail : out.append(tail).toString();
      }
      if (c < 0x20) throw error("control character in a string");
      if (c != '\\') {
        pos++;
        continue;
      }
      if (out == null) out = new StringBuilder();
      out.append(text, start, pos);
      pos++;
      if (pos >= text.length()) throw error("unterminated escape");
      char e = text.charAt(pos++);
      switch (e) {
        case '"': out.append('"'); break;
        case '\\': out.append('\\'); break;
        case '/': out.append('/'); break;
        case 'b': out.append('\b'); break;
        case 'f': out.append('\f'); break;
        case 'n': out.append('\n'); break;
        case 'r': out.append('\r'); break;
        case 't': out.append('\t'); break;
        case 'u': out.append(readHex4()); break;
        default: throw error("bad escape '\\" + e + "'");
      }
      start = pos;
    }
  }

  /** A {@code \\uXXXX} unit as is: a surrogate pair arrives as two escapes, each kept. */
  private char readHex4() {
    if (pos + 4 > text.length()) throw error("short \\u escape");
    int value = 0;
    for (int i = 0; i < 4; i++) {
      int digit = Character.digit(text.charAt(pos + i), 16);
      if (digit < 0) throw error("bad \\u escape");
      value = value << 4 | digit;
    }
    pos += 4;
    return (char) value;
  }

  private Object readNumber() {
    int start = pos;
    if (peek() == '-') pos++;
    if (peek() == '0') {
      pos++;
    } else if (isDigit(peek())) {
      while (isDigit(peek())) pos++;
    } else {
      throw error("bad number");
    }
    boolean integral = true;
    if (peek() == '.') {
      integral = false;
      pos++;
      if (!isDigit(peek())) throw error("bad number: digits expected after '.'");
      while (isDigit(peek())) pos++;
    }
    if (peek() == 'e' || peek() == 'E') {
      integral = false;
      pos++;
      if (peek() == '+' || peek() == '-') pos++;
      if (!isDigit(peek())) throw error("bad number: digits expected in the exponent");
      while (isDigit(peek())) pos++;
    }
    String number = text.substring(start, pos);
    if (integral && number.length() <= 18) return Long.parseLong(number);
    if (integral) {
      try {
        return Long.parseLong(number);
      } catch (NumberFormatException tooBig) {
        return Double.parseDouble(number);
      }
    }
    return Double.parseDouble(number);
  }

  private void expectWord(String word) {
    if (!text.startsWith(word, pos)) throw error("unexpected word");
    pos += word.length();
  }

  private char peek() {
    return pos < text.length() ? text.charAt(pos) : '\0';
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private void skipWhitespace() {
    while (pos < text.length()) {
      char c = text.charAt(pos);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
      pos++;
    }
  }

  private IllegalArgumentException error(String message) {
    return new IllegalArgumentException("JSON: " + message + " at offset " + pos);
  }
}
