package dev.arbiter.client;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One experiment of the config, prepared for the hot path: the salt pre-hashed, the bucket
 * ranges as parallel sorted arrays, the variants by key. Immutable except {@code exposed},
 * which a refresh carries over so that a new config version does not resend exposures.
 */
final class CompiledExperiment {
  /** A variant's optional prompt and variables. */
  static final class Variant {
    final String prompt;
    final Map<String, Object> variables;

    Variant(String prompt, Map<String, Object> variables) {
      this.prompt = prompt;
      this.variables = variables;
    }
  }

  final String id;
  final String name;
  final Bucketer bucketer;
  /** Half-open {@code [starts[i], ends[i])} owned by {@code owners[i]}, sorted by start. */
  private final long[] starts;
  private final long[] ends;
  private final String[] owners;
  final Map<String, Variant> variants;
  /** Users already sent an exposure, with the variant they got. */
  final ConcurrentHashMap<String, String> exposed;
  /** Who may enter (docs/wire-format.md), checked readable once; null when everyone may. */
  private final CompiledCondition targeting;
  /** A targeting that cannot be read (a non-object included) lets no one in. */
  private final boolean nobody;
  /** The config's saved groups by key, which {@code $inGroup} looks values up in. */
  private final Map<String, ?> savedGroups;

  CompiledExperiment(String id, String name, Bucketer bucketer, long[] starts, long[] ends,
      String[] owners, Map<String, Variant> variants, ConcurrentHashMap<String, String> exposed,
      Object targeting, Map<String, ?> savedGroups) {
    this.id = id;
    this.name = name;
    this.bucketer = bucketer;
    this.starts = starts;
    this.ends = ends;
    this.owners = owners;
    this.variants = variants;
    this.exposed = exposed;
    boolean everyone = targeting == null
        || (targeting instanceof Map && ((Map<?, ?>) targeting).isEmpty());
    boolean readable = !everyone && ConditionCheck.isReadable(targeting);
    this.targeting = readable ? CompiledCondition.of((Map<?, ?>) targeting) : null;
    this.nobody = !everyone && !readable;
    this.savedGroups = savedGroups;
  }

  /**
   * The user's variant, or null when the targeting does not match {@code attributes} (null
   * reads as none) or the bucket is in no range. Targeting first, as the server and every
   * client order it.
   */
  String variantOf(String user, Map<String, ?> attributes) {
    if (nobody) return null;
    if (targeting != null
        && !targeting.matches(attributes == null ? Map.of() : attributes, savedGroups)) {
      return null;
    }
    long bucket = bucketer.bucketOf(user);
    int lo = 0;
    int hi = starts.length - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (bucket < starts[mid]) {
        hi = mid - 1;
      } else if (bucket >= ends[mid]) {
        lo = mid + 1;
      } else {
        return owners[mid];
      }
    }
    return null;
  }
}
