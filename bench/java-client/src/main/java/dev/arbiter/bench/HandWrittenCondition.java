package dev.arbiter.bench;

import java.util.Map;

/**
 * {@link AssignBenchmark}'s five-clause targeting condition written out in Java by hand: its
 * field names and operands are constants in the code, as a condition compiled to bytecode would
 * have them, and its attributes are read with the same {@code Map.get} calls. What it costs is
 * the floor of any evaluator over a caller's map (issue 29's speed goal; {@link TargetingProbe}).
 * Right for the bench's attributes only (plain {@code major.minor.patch} versions, ASCII
 * locales); the set-up checks it against the client for every user.
 */
final class HandWrittenCondition {
  private HandWrittenCondition() {}

  static boolean matches(Map<String, ?> attributes) {
    Object plan = attributes.get("plan");
    if (!("pro".equals(plan) || "team".equals(plan))) return false;
    Object locale = attributes.get("locale");
    if (!(locale instanceof String && ((String) locale).regionMatches(true, 0, "en", 0, 2))) {
      return false;
    }
    Object app = attributes.get("app");
    if (!(app instanceof Map)) return false;
    Object version = ((Map<?, ?>) app).get("version");
    if (!(version instanceof String && atLeast240((String) version))) return false;
    Object country = attributes.get("country");
    if ("CU".equals(country) || "IR".equals(country)) return false;
    Object age = attributes.get("age");
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
