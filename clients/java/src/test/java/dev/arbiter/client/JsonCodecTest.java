package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonCodecTest {
  @Test
  void readsEveryValueKind() {
    Object v = JsonReader.parse(
        " {\"s\":\"x\",\"i\":-12,\"d\":1.5e2,\"t\":true,\"f\":false,\"n\":null,\"a\":[1,[2],{}],\"o\":{\"k\":[]}} ");
    Map<?, ?> m = (Map<?, ?>) v;
    assertEquals("x", m.get("s"));
    assertEquals(-12L, m.get("i"));
    assertEquals(150.0, m.get("d"));
    assertEquals(Boolean.TRUE, m.get("t"));
    assertEquals(Boolean.FALSE, m.get("f"));
    assertTrue(m.containsKey("n"));
    assertNull(m.get("n"));
    assertEquals(List.of(1L, List.of(2L), Map.of()), m.get("a"));
    assertEquals(Map.of("k", List.of()), m.get("o"));
    assertEquals(List.of("s", "i", "d", "t", "f", "n", "a", "o"), new ArrayList<>(m.keySet()));
  }

  @Test
  void readsEscapesAndSurrogatePairs() {
    assertEquals("\"\\/\b\f\n\r\t", JsonReader.parse("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\""));
    assertEquals("é€", JsonReader.parse("\"\\u00e9\\u20AC\""));
    // A pair arrives as two escapes and becomes one code point; raw astral text too.
    assertEquals("😀", JsonReader.parse("\"\\ud83d\\ude00\""));
    assertEquals(1, ((String) JsonReader.parse("\"\\ud83d\\ude00\"")).codePointCount(0, 2));
    assertEquals("😀", JsonReader.parse("\"😀\""));
    // A lone surrogate is valid JSON: kept as is (the bucketer turns it into U+FFFD).
    assertEquals("a\ud800b", JsonReader.parse("\"a\\ud800b\""));
  }

  @Test
  void readsNumbers() {
    assertEquals(0L, JsonReader.parse("0"));
    assertEquals(-0.0, JsonReader.parse("-0.0"));
    assertEquals(4294967295L, JsonReader.parse("4294967295"));
    assertEquals(Long.MAX_VALUE, JsonReader.parse("9223372036854775807"));
    assertEquals(9.223372036854776E18, JsonReader.parse("9223372036854775808"));
    assertEquals(19.99, JsonReader.parse("19.99"));
    assertEquals(1e-7, JsonReader.parse("1E-7"));
    assertEquals(0.0031, JsonReader.parse("3.1e-3"));
  }

  @Test
  void refusesMalformedInput() {
    for (String bad : List.of("", "{", "[1,]", "{\"a\" 1}", "{\"a\":1,}", "01", "1.", ".5", "-",
        "1e", "tru", "nul", "\"abc", "\"\\x\"", "\"\\u12\"", "\"a\nb\"", "[1] 2", "{'a':1}",
        "NaN", "Infinity", "+1")) {
      assertThrows(IllegalArgumentException.class, () -> JsonReader.parse(bad), bad);
    }
  }

  @Test
  void limitsNesting() {
    String ok = "[".repeat(JsonReader.MAX_DEPTH) + "]".repeat(JsonReader.MAX_DEPTH);
    JsonReader.parse(ok);
    String deep = "[".repeat(JsonReader.MAX_DEPTH + 1) + "]".repeat(JsonReader.MAX_DEPTH + 1);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> JsonReader.parse(deep));
    assertTrue(e.getMessage().contains("nesting"));
    // Far deeper than any stack: refused, not a StackOverflowError.
    assertThrows(IllegalArgumentException.class,
        () -> JsonReader.parse("{\"a\":".repeat(100_000)));
    List<Object> nested = new ArrayList<>();
    List<Object> cursor = nested;
    for (int i = 0; i < JsonReader.MAX_DEPTH + 2; i++) {
      List<Object> inner = new ArrayList<>();
      cursor.add(inner);
      cursor = inner;
    }
    assertThrows(IllegalArgumentException.class, () -> JsonWriter.write(nested));
  }

  @Test
  void writesEscapesAsJavaScriptDoes() {
    assertEquals("\"q\\\"b\\\\n\\nt\\tc\\u0001\\u001f\"", JsonWriter.write("q\"b\\n\nt\tc\u0001\u001f"));
    // Non-ASCII goes out as UTF-8 text; a pair stays a pair; a lone surrogate is escaped.
    assertEquals("\"é😀\"", JsonWriter.write("é😀"));
    assertEquals("\"a\\ud800b\\udc00\"", JsonWriter.write("a\ud800b\udc00"));
    assertEquals("a\ud800b\udc00", JsonReader.parse(JsonWriter.write("a\ud800b\udc00")));
  }

  @Test
  void writesNumbers() {
    assertEquals("[1,-2,19.99,19,0.0031,1.0E21,4294967295,0]",
        JsonWriter.write(List.of(1, -2L, 19.99, 19.0, 0.0031, 1e21, 4294967295L, -0.0)));
    assertThrows(IllegalArgumentException.class, () -> JsonWriter.write(Double.NaN));
    assertThrows(IllegalArgumentException.class, () -> JsonWriter.write(Double.POSITIVE_INFINITY));
    assertThrows(IllegalArgumentException.class, () -> JsonWriter.write(new Object()));
  }

  @Test
  void roundTripsAnEvent() {
    Map<String, Object> event = new LinkedHashMap<>();
    event.put("event_id", "e-1");
    event.put("value", 19.99);
    event.put("input_tokens", 120L);
    event.put("error", null);
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("order", "A-17 «ü» 😀");
    metadata.put("items", List.of(1L, true, "x"));
    event.put("metadata", metadata);
    String text = JsonWriter.write(event);
    assertEquals(
        "{\"event_id\":\"e-1\",\"value\":19.99,\"input_tokens\":120,\"error\":null,\"metadata\":{\"order\":\"A-17 «ü» 😀\",\"items\":[1,true,\"x\"]}}",
        text);
    assertEquals(event, JsonReader.parse(text));
  }
}
