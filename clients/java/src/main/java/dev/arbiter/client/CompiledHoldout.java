package dev.arbiter.client;

/**
 * One holdout of the config (docs/wire-format.md#who-enters-an-experiment-holdouts-layers-targeting):
 * its own salt and bucket count, its held-out buckets, and who was sent its exposure today.
 * Immutable except {@code exposed}, which a refresh carries over by id, as an experiment's.
 */
final class CompiledHoldout {
  /** The variant of a holdout's exposure for a user it holds out, and for everyone else. */
  static final String HELD_OUT = "holdout";
  static final String GENERAL = "general";
  private static final long HELD_OUT_KEY = CompiledExperiment.keyHash(HELD_OUT);
  private static final long GENERAL_KEY = CompiledExperiment.keyHash(GENERAL);

  final String id;
  final Bucketer bucketer;
  private final BucketRanges held;
  /** Fingerprints of (user, holdout or general) sent the holdout's exposure today. */
  final ExposureTable exposed;

  CompiledHoldout(String id, Bucketer bucketer, BucketRanges held, ExposureTable exposed) {
    this.id = id;
    this.bucketer = bucketer;
    this.held = held;
    this.exposed = exposed;
  }

  /** Whether the user whose hash ({@code bucketer.hashOf}) this is is held out. */
  boolean holds(int hash) {
    return held.contains(bucketer.mod(Integer.toUnsignedLong(hash)));
  }

  /** As {@link CompiledExperiment#fingerprint}, with the holdout's two variants. */
  long fingerprint(int hash, String user, boolean heldOut) {
    return ((long) hash << 32 | (user.hashCode() & 0xffff_ffffL))
        ^ (heldOut ? HELD_OUT_KEY : GENERAL_KEY);
  }
}
