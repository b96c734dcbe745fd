package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pieces of {@code evaluate} that need no server: texts, scorers, the cost a call reports. */
class EvaluationPartsTest {
  @Test
  void theProgressLineShowsDoneTotalShareAndEta() {
    assertEquals("evaluate checkout: 37/120 (30%), ETA 22s",
        ProgressLine.text("checkout", 37, 120, 10_000));
    assertEquals("evaluate checkout: 120/120 (100%), ETA 0s",
        ProgressLine.text("checkout", 120, 120, 10_000));
  }

  @Test
  void theProgressLineIsRedrawnInPlaceAndEndsWithANewline() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ProgressLine line = new ProgressLine(new PrintStream(bytes, true, StandardCharsets.UTF_8), "e");
    line.update(9, 10);
    line.update(10, 10);
    line.finish();
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertTrue(out.startsWith("\revaluate e: 9/10 (90%), ETA "), out);
    assertTrue(out.contains("\revaluate e: 10/10 (100%), ETA 0s"), out);
    assertTrue(out.endsWith("\n"), out);
  }

  @Test
  void withoutATerminalNothingIsDrawn() {
    // Surefire's forked JVM has no console, as a CI job's has none.
    assertNull(ProgressLine.terminalStderr());
  }

  @Test
  void aTaskErrorIsItsMessageStorableAndCut() {
    assertEquals("bad input", EvaluationRunner.errorText(new IllegalStateException("bad input")));
    assertEquals("java.lang.IllegalStateException",
        EvaluationRunner.errorText(new IllegalStateException()));
    assertEquals("a\uFFFDb\uFFFD", EvaluationRunner.errorText(new RuntimeException("a\u0000b\uD800")));
    String cut = EvaluationRunner.errorText(new RuntimeException("x".repeat(2_000)));
    assertEquals(ArbiterDefaults.MAX_ERROR_LENGTH, cut.length());
    assertTrue(cut.endsWith("…"));
  }

  @Test
  void scorersAreSentAsGivenWithoutTheirFunction() {
    assertEquals(Map.of("name", "exact", "kind", "exact_match", "case_sensitive", false,
        "direction", "increase"),
        Scorer.exactMatch("exact").caseSensitive(false).direction(Scorer.Direction.INCREASE).toMap());
    assertEquals(Map.of("name", "close", "kind", "numeric_close", "tolerance", 0.5),
        Scorer.numericClose("close", 0.5).toMap());
    assertEquals(Map.of("name", "latency_ms", "kind", "latency_ms", "non_inferiority_margin", 50.0),
        Scorer.measured("latency_ms").nonInferiorityMargin(50).toMap());
    Scorer custom = Scorer.custom("polite", s -> 1);
    assertEquals(Map.of("name", "polite", "kind", "custom"), custom.toMap());
    assertTrue(custom.function() != null);
  }

  @Test
  void aReportedCostIsRead() {
    assertEquals(0.0021, ModelCallReader.read(Map.of("model", "m",
        "usage", Map.of("prompt_tokens", 3L, "completion_tokens", 4L, "cost", 0.0021)), false).cost);
    assertEquals(0.5, ModelCallReader.read(Map.of("usage", Map.of(), "cost_usd", 0.5), false).cost);
    assertNull(ModelCallReader.read(Map.of("usage", Map.of("cost", -1.0)), false).cost);
    assertNull(ModelCallReader.read(Map.of("model", "m"), false).cost);
  }

  @Test
  void measuredCallsAreSummedAndTheFirstModelKept() {
    TaskMeasure m = new TaskMeasure("id-1", "exp", "treatment");
    assertEquals("treatment", m.measure("exp", v -> v));
    assertEquals("treatment", m.measure("id-1", v -> v));
    assertNull(m.measure("another", v -> v));
    m.measure("exp", v -> Map.of("model", "first", "usage",
        Map.of("input_tokens", 3L, "output_tokens", 4L, "cost", 0.25)));
    m.measure("exp", v -> Map.of("model", "second", "usage", Map.of("input_tokens", 5L, "cost", 0.5)));
    Map<String, Object> row = new LinkedHashMap<>();
    // A task time no call could measure: the row must carry the calls' sum instead.
    m.into(row, -7.0);
    assertEquals(8L, row.get("input_tokens"));
    assertEquals(4L, row.get("output_tokens"));
    assertEquals(0.75, row.get("cost"));
    assertEquals("first", row.get("model"));
    assertTrue((Double) row.get("latency_ms") >= 0, "the calls' latency, not the task's");

    Map<String, Object> none = new LinkedHashMap<>();
    new TaskMeasure("id-1", "exp", "v").into(none, 12.5);
    assertEquals(Map.of("latency_ms", 12.5), none);
  }
}
