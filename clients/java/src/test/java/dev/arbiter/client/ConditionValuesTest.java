package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** How the evaluator reads values, and attributes of the Java types callers pass. */
class ConditionValuesTest {
  /** A double and JavaScript's String(x) of it (Node.js 20). */
  private static final Object[][] JAVASCRIPT_STRINGS = {
      {1.0, "1"},
      {1.5, "1.5"},
      {-1.5, "-1.5"},
      {0.1, "0.1"},
      {0.30000000000000004, "0.30000000000000004"},
      {0.3333333333333333, "0.3333333333333333"},
      {100.0, "100"},
      {1e+21, "1e+21"},
      {100000000000000000000.0, "100000000000000000000"},
      {123456789012345680000.0, "123456789012345680000"},
      {1.5e-7, "1.5e-7"},
      {1e-7, "1e-7"},
      {0.000001, "0.000001"},
      {0.0000015, "0.0000015"},
      {5e-324, "5e-324"},
      {1.7976931348623157e+308, "1.7976931348623157e+308"},
      {9007199254740994.0, "9007199254740994"},
      {9223372036854776000.0, "9223372036854776000"},
      {18446744073709552000.0, "18446744073709552000"},
      {-0.0, "0"},
      {123.456, "123.456"},
      {1e+100, "1e+100"},
      {1e+23, "1e+23"},
      {4.35, "4.35"},
      {0.002, "0.002"},
      {1.2345e-7, "1.2345e-7"},
      {-1e-7, "-1e-7"},
      {-2.5e+25, "-2.5e+25"},
      {6.02214076e+23, "6.02214076e+23"},
      {1.0000000000000002, "1.0000000000000002"},
  };

  @Test
  void numbersPrintAsJavaScriptPrintsThem() {
    for (Object[] row : JAVASCRIPT_STRINGS) {
      assertEquals(row[1], ConditionValues.numberToString((Double) row[0]), String.valueOf(row[0]));
    }
    assertEquals("NaN", ConditionValues.numberToString(Double.NaN));
    assertEquals("-Infinity", ConditionValues.numberToString(Double.NEGATIVE_INFINITY));
  }

  /** The shortest digits that read back: never more than 17, and the same double again. */
  @Test
  void numberStringsReadBackAsTheSameDouble() {
    Random random = new Random(29);
    for (int k = 0; k < 5_000; k++) {
      double d = k % 2 == 0 ? Double.longBitsToDouble(random.nextLong())
          : random.nextDouble() * Math.pow(10, random.nextInt(40) - 20);
      if (Double.isNaN(d) || Double.isInfinite(d)) continue;
      String text = ConditionValues.numberToString(d);
      assertEquals(d == 0 ? 0.0 : d, Double.parseDouble(text), text);
      String digits = text.replaceFirst("e.*", "").replaceAll("[^0-9]", "")
          .replaceFirst("^0+", "").replaceFirst("0+$", "");
      assertTrue(digits.length() <= 17, text);
    }
  }

  @Test
  void stringsReadAsNumbersOnlyWhenPlainDecimals() {
    assertEquals(12.5, ConditionValues.numberForm("12.5"));
    assertEquals(-0.5, ConditionValues.numberForm("-.5"));
    assertEquals(1.0, ConditionValues.numberForm("1."));
    assertEquals(1e3, ConditionValues.numberForm("+1e3"));
    for (String notPlain : new String[] {"", " 1", "1 ", "0x10", "Infinity", "NaN", "1d", "1f",
        "1_000", "١", "1e", "."}) {
      assertTrue(Double.isNaN(ConditionValues.numberForm(notPlain)), notPlain);
    }
    assertEquals(0.0, ConditionValues.numberForm(null));
    assertEquals(1.0, ConditionValues.numberForm(true));
    assertTrue(Double.isNaN(ConditionValues.numberForm(List.of(5L))));
  }

  /** GrowthBook's padded form: its own example, a release above its prereleases. */
  @Test
  void versionsPadAsGrowthBookDoes() {
    assertEquals("    1-    2-    3-rc-    1", VersionString.padded("v1.2.3-rc.1+build123"));
    assertEquals("    1-    0-    0-~", VersionString.padded("1.0.0"));
    assertEquals("    0", VersionString.padded(null));
    assertEquals("    2", VersionString.padded(2L));
    assertTrue(VersionString.padded("1.0.0").compareTo(VersionString.padded("1.0.0-beta")) > 0);
    assertTrue(VersionString.padded("1.10.0").compareTo(VersionString.padded("1.9.0")) > 0);
  }

  /** The one-pass form against GrowthBook's steps written plainly, on random version text. */
  @Test
  void paddedVersionsMatchTheStepByStepForm() {
    Random random = new Random(31);
    String alphabet = "v+-.0123456789rcab~ ";
    for (int k = 0; k < 20_000; k++) {
      StringBuilder text = new StringBuilder();
      for (int n = random.nextInt(12); n > 0; n--) {
        text.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      String version = text.toString();
      assertEquals(stepByStep(version), VersionString.padded(version), version);
    }
  }

  private static String stepByStep(String version) {
    String text = version.isEmpty() ? "0" : version;
    text = text.replaceFirst("^v", "").replaceFirst("(?s)\\+.*$", "");
    List<String> parts = new ArrayList<>(Arrays.asList(text.split("[-.]", -1)));
    if (parts.size() == 3) parts.add("~");
    parts.replaceAll(p -> p.matches("[0-9]+") ? " ".repeat(Math.max(0, 5 - p.length())) + p : p);
    return String.join("-", parts);
  }

  @Test
  void everyJavaNumberTypeComparesByValue() {
    Object condition = JsonReader.parse(
        "{\"n\":{\"$eq\":2,\"$in\":[1,2],\"$gt\":1.5,\"$lte\":2.0},\"s\":\"2\","
            + "\"v\":{\"$vgt\":\"1.9\"}}");
    for (Number two : new Number[] {2, 2L, 2.0, 2.0f, (short) 2, (byte) 2, new BigDecimal("2.00"),
        BigInteger.TWO}) {
      Map<String, Object> attributes = Map.of("n", two, "s", two, "v", two);
      assertTrue(ConditionEvaluator.evalCondition(attributes, condition, null),
          two.getClass().getSimpleName());
    }
    assertFalse(ConditionEvaluator.evalCondition(Map.of("n", 3, "s", 2, "v", 2), condition, null));
  }

  @Test
  void callerStringsAndCollectionsReadAsJson() {
    Object condition = JsonReader.parse(
        "{\"name\":{\"$regex\":\"^an\"},\"tags\":{\"$all\":[\"a\",\"b\"],\"$size\":2},"
            + "\"ids\":{\"$elemMatch\":{\"$gt\":5}},\"c\":\"x\"}");
    Map<String, Object> attributes = Map.of("name", new StringBuilder("ann"),
        "tags", new LinkedHashSet<>(List.of("b", "a")), "ids", new Object[] {1, 7L}, "c", 'x');
    assertTrue(ConditionEvaluator.evalCondition(attributes, condition, null));
    assertTrue(ConditionEvaluator.evalCondition(Map.of("t", Arrays.asList("a", null)),
        JsonReader.parse("{\"t\":[\"a\",null]}"), null));
  }

  /** Any other object (an enum, a date) is opaque: present, an "object", equal to nothing. */
  @Test
  void otherObjectsAreOpaque() {
    Map<String, Object> attributes = Map.of("x", Thread.State.NEW);
    assertTrue(ConditionEvaluator.evalCondition(attributes,
        JsonReader.parse("{\"x\":{\"$exists\":true,\"$type\":\"object\",\"$ne\":\"NEW\"}}"), null));
    assertFalse(ConditionEvaluator.evalCondition(attributes,
        JsonReader.parse("{\"x\":{\"$in\":[\"NEW\"]}}"), null));
    assertFalse(ConditionEvaluator.evalCondition(attributes,
        JsonReader.parse("{\"x\":{\"$regex\":\"NEW\"}}"), null));
  }
}
