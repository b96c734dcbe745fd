package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The builder's durations: {@link Duration} setters where null means the default. */
class DurationOptionsTest {
  /** Every builder method that takes a Duration, with the field it sets (same name). */
  static List<Method> durationSetters() {
    List<Method> setters = new ArrayList<>();
    for (Method m : Arbiter.Builder.class.getMethods()) {
      if (m.getParameterCount() == 1 && m.getParameterTypes()[0] == Duration.class) {
        setters.add(m);
      }
    }
    return setters;
  }

  static Object field(Arbiter.Builder b, String name) throws Exception {
    Field f = Arbiter.Builder.class.getDeclaredField(name);
    f.setAccessible(true);
    return f.get(b);
  }

  @Test
  void everyDurationOptionIsThere() {
    List<String> names = new ArrayList<>();
    for (Method m : durationSetters()) names.add(m.getName());
    names.sort(null);
    assertEquals(List.of("closeTimeout", "flushInterval", "pollInterval", "requestTimeout",
        "retryAfterCap", "retryBaseDelay", "retryMaxDelay"), names);
  }

  @Test
  void aDurationIsKeptAndNullMeansTheDefault() throws Exception {
    Duration odd = Duration.ofMillis(1_234);
    for (Method setter : durationSetters()) {
      String name = setter.getName();
      Object byDefault = field(Arbiter.builder(), name);
      Arbiter.Builder b = Arbiter.builder();
      setter.invoke(b, odd);
      assertEquals(odd, field(b, name), name);
      assertNotEquals(odd, byDefault, name);
      setter.invoke(b, (Object) null);
      assertEquals(byDefault, field(b, name), name + "(null)");
    }
  }

  @Test
  void aDurationBeyondALongOfMillisecondsSaturatesInsteadOfThrowing() {
    assertEquals(1_500, Arbiter.Builder.millis(Duration.ofMillis(1_500)));
    assertEquals(Long.MAX_VALUE, Arbiter.Builder.millis(Duration.ofSeconds(Long.MAX_VALUE)));
    assertEquals(Long.MIN_VALUE, Arbiter.Builder.millis(Duration.ofSeconds(Long.MIN_VALUE)));
  }

  @Test
  void aClientWithHugeDurationsStillBuildsAndCloses() throws Exception {
    try (FakeArbiter fake = new FakeArbiter(Configs.doc(1, List.of(Configs.twoArms())))) {
      Duration huge = Duration.ofSeconds(Long.MAX_VALUE);
      Arbiter client = Arbiter.builder().apiKey(fake.apiKey).baseUrl(fake.baseUrl())
          .logger(new MemoryLogger()).pollInterval(huge).flushInterval(huge)
          .retryAfterCap(huge).retryMaxDelay(huge).build();
      assertTrue(client.ready().get());
      client.close();
      assertEquals(0, client.stats().queued());
    }
  }
}
