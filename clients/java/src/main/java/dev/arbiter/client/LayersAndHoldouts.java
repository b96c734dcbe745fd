package dev.arbiter.client;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The config's {@code layers} and {@code holdouts}, compiled once per config load, and the
 * {@link ExperimentGate} of each experiment that names them, resolved here so that no
 * assignment looks a layer or a holdout up by name.
 *
 * <p>What cannot be read is decided for safety (docs/decisions/clients.md#java-client): a layer entry
 * that cannot be read is one the config does not carry, so its experiments let no one in; a
 * holdout entry that cannot be read (or a {@code holdouts} that is not a list) leaves out every
 * experiment naming it, as a malformed experiment is left out: skipping the holdout instead
 * would give its held-out users the change it exists to keep from them.
 */
final class LayersAndHoldouts {
  /** The gate of an experiment whose layer, layer ranges or holdouts cannot be used. */
  static final ExperimentGate MALFORMED =
      new ExperimentGate(new CompiledHoldout[0], true, null, BucketRanges.NONE);

  private final Map<String, Bucketer> layers = new HashMap<>();
  /** The holdouts by id, for the next config to carry their exposure tables over. */
  final Map<String, CompiledHoldout> holdouts = new HashMap<>();
  private final Set<String> unreadableHoldouts = new HashSet<>();
  private boolean holdoutListUnreadable;
  /** Entries left out, for the log. */
  final List<String> skipped = new ArrayList<>();

  private LayersAndHoldouts() {}

  static LayersAndHoldouts of(Map<?, ?> doc, Map<String, CompiledHoldout> previous,
      int exposureCapacity) {
    LayersAndHoldouts out = new LayersAndHoldouts();
    Object layers = doc.get("layers");
    if (layers instanceof List) {
      for (Object raw : (List<?>) layers) out.addLayer(raw);
    } else if (layers != null) {
      out.skipped.add("layers (not a list)");
    }
    Object holdouts = doc.get("holdouts");
    if (holdouts instanceof List) {
      for (Object raw : (List<?>) holdouts) out.addHoldout(raw, previous, exposureCapacity);
    } else if (holdouts != null) {
      out.holdoutListUnreadable = true;
      out.skipped.add("holdouts (not a list)");
    }
    return out;
  }

  private void addLayer(Object raw) {
    Map<?, ?> layer = raw instanceof Map ? (Map<?, ?>) raw : Map.of();
    Object name = layer.get("name");
    Bucketer bucketer = bucketer(layer);
    if (name instanceof String && bucketer != null) {
      // The first of a repeated name counts, as the reference evaluator's find.
      layers.putIfAbsent((String) name, bucketer);
    } else {
      skipped.add("layer " + (name instanceof String ? name : raw));
    }
  }

  private void addHoldout(Object raw, Map<String, CompiledHoldout> previous,
      int exposureCapacity) {
    Map<?, ?> holdout = raw instanceof Map ? (Map<?, ?>) raw : Map.of();
    Object id = holdout.get("id");
    Bucketer bucketer = bucketer(holdout);
    BucketRanges held = BucketRanges.of(holdout.get("ranges"));
    if (!(id instanceof String)) {
      // No id to tell which experiments it applies to: every one naming a holdout is suspect.
      holdoutListUnreadable = true;
      skipped.add("holdout " + raw);
      return;
    }
    if (bucketer == null || held == null) {
      unreadableHoldouts.add((String) id);
      skipped.add("holdout " + id);
      return;
    }
    CompiledHoldout before = previous.get(id);
    holdouts.putIfAbsent((String) id, new CompiledHoldout((String) id, bucketer, held,
        before != null ? before.exposed : new ExposureTable(exposureCapacity)));
  }

  private static Bucketer bucketer(Map<?, ?> entry) {
    Object salt = entry.get("salt");
    Object count = entry.get("bucket_count");
    if (!(salt instanceof String) || !(count instanceof Long) || (Long) count < 1
        || (Long) count > 0xffff_ffffL) {
      return null;
    }
    return new Bucketer((String) salt, (Long) count);
  }

  /**
   * The gate of one experiment (its JSON map): null when it names no layer and no holdout,
   * {@link #MALFORMED} when what it names cannot be used.
   */
  ExperimentGate gateOf(Map<?, ?> experiment) {
    Object layer = experiment.get("layer");
    Object holdoutIds = experiment.get("holdouts");
    if (layer == null && holdoutIds == null) return null;
    if (layer != null && !(layer instanceof String)) return MALFORMED;
    BucketRanges layerRanges = BucketRanges.NONE;
    if (layer != null && experiment.get("layer_ranges") != null) {
      layerRanges = BucketRanges.of(experiment.get("layer_ranges"));
      if (layerRanges == null) return MALFORMED;
    }
    List<CompiledHoldout> applying = new ArrayList<>();
    if (holdoutIds != null) {
      if (!(holdoutIds instanceof List)) return MALFORMED;
      for (Object id : (List<?>) holdoutIds) {
        if (!(id instanceof String) || unreadableHoldouts.contains(id)) return MALFORMED;
        if (holdoutListUnreadable) return MALFORMED;
        CompiledHoldout holdout = holdouts.get(id);
        // An id the config does not carry holds no one out and sends nothing.
        if (holdout != null) applying.add(holdout);
      }
    }
    if (layer == null && applying.isEmpty()) return null;
    return new ExperimentGate(applying.toArray(new CompiledHoldout[0]), layer != null,
        layer == null ? null : layers.get(layer), layerRanges);
  }
}
