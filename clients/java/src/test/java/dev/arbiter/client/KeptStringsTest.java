package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link KeptStrings} hands out one {@link KeptValue} per short string and never changes a value. */
class KeptStringsTest {
  private static String textOf(Object kept) {
    return ((KeptValue) kept).text;
  }

  @Test
  void equalShortStringsShareOneKeptValue() {
    KeptStrings kept = new KeptStrings();
    Object first = kept.kept(new String("2.4.1"));
    assertEquals("2.4.1", textOf(first));
    assertSame(first, kept.kept(new String("2.4.1")));
    assertEquals("2.4.2", textOf(kept.kept(new String("2.4.2"))));
  }

  @Test
  void longStringsAndOtherValuesAreLeftAsTheyAre() {
    KeptStrings kept = new KeptStrings();
    String longText = "x".repeat(65);
    kept.kept(longText);
    String again = new String(longText);
    assertSame(again, kept.kept(again));
    Object list = List.of("a");
    assertSame(list, kept.kept(list));
    Long number = 1_000L;
    assertSame(number, kept.kept(number));
    assertEquals(null, kept.kept(null));
    assertSame(ConditionField.UNREADABLE, kept.kept(ConditionField.UNREADABLE));
  }

  @Test
  void aStringTakingAnotherOnesSlotStillAnswersItself() {
    KeptStrings kept = new KeptStrings();
    // Far more strings than slots: every answer holds the string asked for.
    for (int i = 0; i < 5_000; i++) {
      String text = "v" + i;
      assertEquals(text, textOf(kept.kept(text)));
      assertEquals(text, textOf(kept.kept(new String(text))));
    }
  }
}
