package dev.arbiter.bench;

import java.util.Map;

/**
 * {@link AssignBenchmark}'s five-clause targeting condition written out in Java by hand: its
 * field names and operands are constants in the code, as a condition compiled to bytecode would
 * have them, and its attributes are read with the same {@code Map.get} calls. What it costs is
 * the floor of any evaluator over a caller's map (the targeting goal; {@link TargetingProbe}).
 * Right for the bench's attributes only (plain {@code major.minor.patch} versions, ASCII
 * locales); the set-up checks it against the client for every user.
 */
final class HandWrittenCondition {
  private HandWrittenCondition() {}

  static boolean matches(Map<String, ?> attributes) {
    Object plan = attributes.get("plan");
    if (!("pro".equals(plan) || "team".equals(plan))) return false;
    Object locale = attributes.get("locale");
    if (!englishLocale(locale)) return false;
    Object app = attributes.get("app");
    if (!(app instanceof Map)) return false;
    Object version = ((Map<?, ?>) app).get("version");
    if (!(version instanceof String && atLeast240((String) version))) return false;
    Object country = attributes.get("country");
    if ("CU".equals(country) || "IR".equals(country)) return false;
    return adult(attributes.get("age"));
  }

  /**
   * The condition's five fields read once from the caller's map, in the condition's order
   * ({@code plan, locale, app.version, country, age}): what an API that resolves a request's
   * attributes before its {@code assign()} calls would hand the evaluator.
   */
  static Object[] resolve(Map<String, ?> attributes) {
    Object app = attributes.get("app");
    Object version = app instanceof Map ? ((Map<?, ?>) app).get("version") : null;
    return new Object[] {attributes.get("plan"), attributes.get("locale"), version,
        attributes.get("country"), attributes.get("age")};
  }

  /** {@link #matches} over fields {@link #resolve} read: the same tests, no map read. */
  static boolean matchesResolved(Object[] fields) {
    Object plan = fields[0];
    if (!("pro".equals(plan) || "team".equals(plan))) return false;
    if (!englishLocale(fields[1])) return false;
    Object version = fields[2];
    if (!(version instanceof String && atLeast240((String) version))) return false;
    Object country = fields[3];
    if ("CU".equals(country) || "IR".equals(country)) return false;
    return adult(fields[4]);
  }

  private static boolean englishLocale(Object locale) {
    return locale instanceof String && ((String) locale).regionMatches(true, 0, "en", 0, 2);
  }

  private static boolean adult(Object age) {
    return age instanceof Long && (Long) age >= 18;
  }

  // "major.minor.patch" of digits at or above 2.4.0; anything else is false.
  private static boolean atLeast240(String version) {
    int[] parts = new int[3];
    int part = 0;
    for (int i = 0; i < version.length(); i++) {
      char c = version.charAt(i);
      if (c == '.') {
        if (++part == 3) return false;
      } else if (c >= '0' && c <= '9') {
        parts[part] = parts[part] * 10 + (c - '0');
      } else {
        return false;
      }
    }
    if (part != 2) return false;
    if (parts[0] != 2) return parts[0] > 2;
    return parts[1] != 4 ? parts[1] > 4 : parts[2] >= 0;
  }
}
