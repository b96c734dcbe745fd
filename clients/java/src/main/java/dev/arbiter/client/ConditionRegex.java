package dev.arbiter.client;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The compiled patterns of {@code $regex} and {@code $regexi}: JavaScript syntax (see
 * {@link JsPattern}), case-insensitive as JavaScript's {@code i} flag (Unicode case folding).
 * A pattern that can backtrack for ever ({@link RegexSafety}) is not compiled, as an invalid one,
 * and a pattern is never searched in a text past the length cap.
 * The cache is bounded against a caller evaluating ever new conditions.
 */
final class ConditionRegex {
  private static final int MAX_ENTRIES = 1000;
  // One cache per flag, keyed by the pattern itself: no key is built on the evaluation path.
  private static final Map<String, Optional<Pattern>> PLAIN = new ConcurrentHashMap<>();
  private static final Map<String, Optional<Pattern>> FOLDED = new ConcurrentHashMap<>();

  private ConditionRegex() {}

  /** The pattern compiled (case-insensitive when asked), or null when it is not valid or safe. */
  static Pattern compile(String pattern, boolean insensitive) {
    Map<String, Optional<Pattern>> cache = insensitive ? FOLDED : PLAIN;
    Optional<Pattern> cached = cache.get(pattern);
    if (cached != null) return cached.orElse(null);
    Pattern compiled = translateAndCompile(pattern, insensitive);
    if (cache.size() >= MAX_ENTRIES) cache.clear();
    cache.put(pattern, Optional.ofNullable(compiled));
    return compiled;
  }

  /**
   * Whether the pattern finds a match in the text; false for a null pattern or text, and for a
   * text longer than the cap in code points.
   */
  static boolean find(Pattern pattern, String text) {
    return pattern != null
        && text != null
        && RegexSafety.searchable(text)
        && pattern.matcher(text).find();
  }

  private static Pattern translateAndCompile(String pattern, boolean insensitive) {
    if (!RegexSafety.isSafe(pattern)) return null;
    try {
      String java = JsPattern.toJava(pattern);
      if (java == null) return null;
      int flags = insensitive ? Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE : 0;
      return Pattern.compile(java, flags);
    } catch (PatternSyntaxException | StackOverflowError e) {
      return null;
    }
  }
}
