package dev.arbiter.client;

/**
 * What a user must pass in an experiment before its targeting: the experiment's holdouts, in
 * its order, then its layer (docs/wire-format.md#who-enters-an-experiment-holdouts-layers-targeting).
 * Built once per config, and only for an experiment that names a holdout or a layer: the others
 * carry none, so their assignment reads one null field more.
 */
final class ExperimentGate {
  /** The holdouts the config carries, in the experiment's order; unknown ids are left out. */
  final CompiledHoldout[] holdouts;
  /** Whether the experiment names a layer. */
  private final boolean layered;
  /** The named layer's bucketer, or null when the config does not carry it: no one enters. */
  private final Bucketer layer;
  private final BucketRanges layerRanges;

  ExperimentGate(CompiledHoldout[] holdouts, boolean layered, Bucketer layer,
      BucketRanges layerRanges) {
    this.holdouts = holdouts;
    this.layered = layered;
    this.layer = layer;
    this.layerRanges = layerRanges;
  }

  /** Whether the user's bucket in the experiment's layer is one the experiment owns. */
  boolean inLayer(String user) {
    if (!layered) return true;
    return layer != null && layerRanges.contains(layer.bucketOf(user));
  }
}
