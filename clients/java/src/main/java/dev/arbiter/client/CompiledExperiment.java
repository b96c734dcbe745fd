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

  CompiledExperiment(String id, String name, Bucketer bucketer, long[] starts, long[] ends,
      String[] owners, Map<String, Variant> variants, ConcurrentHashMap<String, String> exposed) {
    this.id = id;
    this.name = name;
    this.bucketer = bucketer;
    this.starts = starts;
    this.ends = ends;
    this.owners = owners;
    this.variants = variants;
    this.exposed = exposed;
  }

  /** The user's variant, or null when the bucket is in no range (not enrolled). */
  String variantOf(String user) {
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
