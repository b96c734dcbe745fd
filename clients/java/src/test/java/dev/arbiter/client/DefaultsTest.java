package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The defaults every client library shares (testdata/client-defaults.json). */
class DefaultsTest {
  private static final Map<String, Object> SHARED = RepoFiles.json("testdata/client-defaults.json");

  @SuppressWarnings("unchecked")
  private static Map<String, Object> section(String name) {
    return (Map<String, Object>) SHARED.get(name);
  }

  @Test
  void constantsEqualTheSharedFile() throws Exception {
    for (Map.Entry<String, Object> e : section("constants").entrySet()) {
      Field field = ArbiterDefaults.class.getField(e.getKey());
      assertTrue(Modifier.isStatic(field.getModifiers()) && Modifier.isFinal(field.getModifiers()));
      Object ours = field.get(null);
      Object theirs = e.getValue();
      if (theirs instanceof String) {
        assertEquals(theirs, ours, e.getKey());
      } else {
        assertEquals(((Number) theirs).doubleValue(), ((Number) ours).doubleValue(), e.getKey());
      }
    }
  }

  /**
   * The shared file names options as the TypeScript client does, durations in milliseconds
   * ({@code pollIntervalMs}); the Java builder takes a {@link Duration} under the name without
   * the unit ({@code pollInterval}).
   */
  static String javaName(String sharedOption) {
    return sharedOption.endsWith("Ms")
        ? sharedOption.substring(0, sharedOption.length() - 2) : sharedOption;
  }

  @Test
  void everySharedOptionIsABuilderMethodAndDocumented() {
    List<String> options = new ArrayList<>(section("options").keySet());
    @SuppressWarnings("unchecked")
    List<String> without = (List<String>) SHARED.get("optionsWithoutConstant");
    options.addAll(without);
    Map<String, Class<?>> methods = new TreeMap<>();
    for (Method m : Arbiter.Builder.class.getMethods()) {
      if (m.getReturnType() == Arbiter.Builder.class && m.getParameterCount() == 1
          && !m.isAnnotationPresent(Deprecated.class)) {
        methods.put(m.getName(), m.getParameterTypes()[0]);
      }
    }
    String readme = RepoFiles.read("clients/java/README.md");
    for (String option : options) {
      String name = javaName(option);
      assertTrue(methods.containsKey(name), "Builder." + name + "(..)");
      if (!name.equals(option)) assertEquals(Duration.class, methods.get(name), name);
      assertTrue(readme.contains("| `" + name + "` |"), "README documents " + name);
    }
  }

  @Test
  void optionDefaultsAreTheirConstants() throws Exception {
    Arbiter.Builder b = Arbiter.builder();
    for (Map.Entry<String, Object> e : section("options").entrySet()) {
      Field builderField = Arbiter.Builder.class.getDeclaredField(javaName(e.getKey()));
      builderField.setAccessible(true);
      Object value = builderField.get(b);
      Number ours = value instanceof Duration ? ((Duration) value).toMillis() : (Number) value;
      Object constant = ArbiterDefaults.class.getField((String) e.getValue()).get(null);
      assertEquals(((Number) constant).doubleValue(), ours.doubleValue(), e.getKey());
    }
  }

  /** Each on/off option defaults as the shared file says, in the builder and the README. */
  @Test
  void switchDefaultsAreTheSharedOnes() throws Exception {
    Arbiter.Builder b = Arbiter.builder();
    String readme = RepoFiles.read("clients/java/README.md");
    for (Map.Entry<String, Object> e : section("switches").entrySet()) {
      Field builderField = Arbiter.Builder.class.getDeclaredField(e.getKey());
      builderField.setAccessible(true);
      assertEquals(e.getValue(), builderField.get(b), e.getKey());
      assertTrue(readme.contains("| `" + e.getKey() + "` | `" + e.getValue() + "` |"),
          "README gives the default of " + e.getKey());
    }
  }

  /**
   * Each option whose default is the value another switch was given: unset in the builder, it
   * follows that switch both ways, and the README's default column says so.
   */
  @Test
  void followingSwitchesFollowTheirSwitch() throws Exception {
    String readme = RepoFiles.read("clients/java/README.md");
    for (Map.Entry<String, Object> e : section("switchesFollowing").entrySet()) {
      String option = e.getKey();
      String other = (String) e.getValue();
      assertTrue(readme.contains("| `" + option + "` | same as `" + other + "` |"),
          "README gives the default of " + option);
      for (boolean value : new boolean[] {true, false}) {
        Arbiter.Builder b = Arbiter.builder();
        Arbiter.Builder.class.getMethod(other, boolean.class).invoke(b, value);
        assertEquals(value, resolved(b, option), option + " with " + other + "(" + value + ")");
        Arbiter.Builder.class.getMethod(option, boolean.class).invoke(b, !value);
        assertEquals(!value, resolved(b, option), option + " set");
      }
    }
  }

  /** The value the client takes for a following switch (the builder's resolution of it). */
  private static boolean resolved(Arbiter.Builder b, String option) {
    assertEquals("trackTargetingTallies", option, "a following switch this test knows");
    return b.targetingTallied();
  }

  /** Every public constant is in the README's table with its value. */
  @Test
  void readmeListsEveryConstant() throws Exception {
    String readme = RepoFiles.read("clients/java/README.md");
    Matcher m = Pattern.compile("(?m)^\\| `([A-Z0-9_]+)` \\| `([^`]*)` \\|$").matcher(readme);
    Map<String, String> table = new TreeMap<>();
    while (m.find()) table.put(m.group(1), m.group(2));
    TreeSet<String> names = new TreeSet<>();
    for (Field f : ArbiterDefaults.class.getFields()) {
      names.add(f.getName());
      assertEquals(String.valueOf(f.get(null)), table.get(f.getName()), f.getName());
    }
    assertEquals(names, table.keySet());
  }

  @Test
  void specFixedValues() {
    assertEquals(60_000, ArbiterDefaults.CONFIG_POLL_INTERVAL_MS);
    assertEquals(24 * 3_600_000L, ArbiterDefaults.OFFLINE_REPLAY_WINDOW_MS);
    assertEquals("https://api.arbiter.dev", ArbiterDefaults.DEFAULT_BASE_URL);
  }
}
