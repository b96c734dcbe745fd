package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link KeptStrings} hands out one instance per short string and never changes a value. */
class KeptStringsTest {
  @Test
  void equalShortStringsShareTheFirstInstance() {
    KeptStrings kept = new KeptStrings();
    String first = new String("2.4.1");
    assertSame(first, kept.shared(first));
    assertSame(first, kept.shared(new String("2.4.1")));
    assertEquals("2.4.2", kept.shared(new String("2.4.2")));
  }

  @Test
  void longStringsAndOtherValuesAreLeftAsTheyAre() {
    KeptStrings kept = new KeptStrings();
    String longText = "x".repeat(65);
    kept.shared(longText);
    String again = new String(longText);
    assertSame(again, kept.shared(again));
    Object list = List.of("a");
    assertSame(list, kept.shared(list));
    Long number = 1_000L;
    assertSame(number, kept.shared(number));
    assertEquals(null, kept.shared(null));
    assertSame(ConditionField.UNREADABLE, kept.shared(ConditionField.UNREADABLE));
  }

  @Test
  void aStringTakingAnotherOnesSlotStillAnswersItself() {
    KeptStrings kept = new KeptStrings();
    // Far more strings than slots: every answer is equal to what was asked.
    for (int i = 0; i < 5_000; i++) {
      String text = "v" + i;
      assertEquals(text, kept.shared(text));
      assertEquals(Map.of("k", text).get("k"), kept.shared(new String(text)));
    }
  }
}
