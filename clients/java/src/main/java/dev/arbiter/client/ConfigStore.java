package dev.arbiter.client;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The last config the API served, swapped whole through one volatile reference so that readers
 * on any thread see one version or the next, never a mix. Name and id map to the same compiled
 * entry, so both address forms bucket identically. A document that cannot be used never
 * replaces a good one: the last known config keeps serving.
 */
final class ConfigStore {
  static final String BUCKETING_VERSION = "1";

  /** What {@link #replace} found: a fatal problem (nothing replaced) or experiments left out. */
  static final class Outcome {
    final String fatal;
    final List<String> skipped;

    Outcome(String fatal, List<String> skipped) {
      this.fatal = fatal;
      this.skipped = skipped;
    }
  }

  private static final class Snapshot {
    final Map<String, CompiledExperiment> byKey;
    /** The holdouts by id, whose exposure tables the next config carries over. */
    final Map<String, CompiledHoldout> holdouts;
    final long version;
    final String etag;
    /** The config's prompts, for {@code prompts().get}. */
    final PromptIndex prompts;

    Snapshot(Map<String, CompiledExperiment> byKey, Map<String, CompiledHoldout> holdouts,
        long version, String etag, PromptIndex prompts) {
      this.byKey = byKey;
      this.holdouts = holdouts;
      this.prompts = prompts;
      this.version = version;
      this.etag = etag;
    }
  }

  private volatile Snapshot current;
  /** Fingerprints each experiment's exposure table holds per day. */
  private final int exposureCapacity;

  ConfigStore(int exposureCapacity) {
    this.exposureCapacity = exposureCapacity;
  }

  boolean loaded() {
    return current != null;
  }

  /** The loaded config_version, or -1 before the first load. */
  long version() {
    Snapshot s = current;
    return s == null ? -1 : s.version;
  }

  String etag() {
    Snapshot s = current;
    return s == null ? null : s.etag;
  }

  CompiledExperiment lookup(String experiment) {
    Snapshot s = current;
    return s == null || experiment == null ? null : s.byKey.get(experiment);
  }

  /** The loaded config's prompts, or null before the first load. */
  PromptIndex prompts() {
    Snapshot s = current;
    return s == null ? null : s.prompts;
  }

  /** Installs a fetched document (called on the scheduler thread only). */
  Outcome replace(Object body, String etag) {
    if (!(body instanceof Map) || !(((Map<?, ?>) body).get("experiments") instanceof List)) {
      return new Outcome("config document has no experiments array", List.of());
    }
    Map<?, ?> doc = (Map<?, ?>) body;
    Object bucketing = doc.get("bucketing_version");
    // A hash version this build does not know would put users in the wrong arm; serving
    // nothing (control behaviour) is the safe answer.
    if (!BUCKETING_VERSION.equals(String.valueOf(bucketing))) {
      return new Outcome("config uses bucketing version " + bucketing + ", this client knows "
          + BUCKETING_VERSION, List.of());
    }
    Snapshot previous = current;
    Map<String, CompiledExperiment> byName = new LinkedHashMap<>();
    List<String> skipped = new ArrayList<>();
    Map<String, ?> groups = savedGroups(doc.get("saved_groups"));
    // One table for the whole version: a prepared value resolves once for all its experiments.
    FieldTable fields = new FieldTable();
    LayersAndHoldouts gates = LayersAndHoldouts.of(doc,
        previous == null ? Map.of() : previous.holdouts, exposureCapacity);
    skipped.addAll(gates.skipped);
    for (Object raw : (List<?>) doc.get("experiments")) {
      CompiledExperiment compiled = compile(raw, previous, groups, gates, exposureCapacity, fields);
      if (compiled == null) {
        skipped.add(describe(raw));
      } else {
        byName.put(compiled.name, compiled);
      }
    }
    Map<String, CompiledExperiment> byKey = new HashMap<>(byName);
    // Ids are set after names so that an id wins should a name ever equal another id.
    for (CompiledExperiment e : byName.values()) byKey.put(e.id, e);
    Object v = doc.get("config_version");
    long version = v instanceof Long ? (Long) v : 0;
    current = new Snapshot(byKey, gates.holdouts, version,
        etag != null ? etag : "\"" + version + "\"", PromptIndex.of(doc));
    return new Outcome(null, skipped);
  }

  /** The config's saved groups by key, for {@code $inGroup}; empty when it has none. */
  @SuppressWarnings("unchecked")
  private static Map<String, ?> savedGroups(Object raw) {
    return raw instanceof Map ? (Map<String, ?>) raw : Map.of();
  }

  private static CompiledExperiment compile(Object raw, Snapshot previous,
      Map<String, ?> savedGroups, LayersAndHoldouts gates, int exposureCapacity,
      FieldTable fields) {
    if (!(raw instanceof Map)) return null;
    Map<?, ?> e = (Map<?, ?>) raw;
    Object id = e.get("id");
    Object name = e.get("name");
    Object salt = e.get("salt");
    Object count = e.get("bucket_count");
    if (!(id instanceof String) || !(name instanceof String) || !(salt instanceof String)) {
      return null;
    }
    if (!(count instanceof Long) || (Long) count < 1 || (Long) count > 0xffff_ffffL) return null;
    if (!(e.get("ranges") instanceof List) || !(e.get("variants") instanceof List)) return null;
    ExperimentGate gate = gates.gateOf(e);
    if (gate == LayersAndHoldouts.MALFORMED) return null;
    List<long[]> bounds = new ArrayList<>();
    List<String> owners = new ArrayList<>();
    for (Object r : (List<?>) e.get("ranges")) {
      if (!(r instanceof Map)) return null;
      Map<?, ?> range = (Map<?, ?>) r;
      if (!(range.get("variant") instanceof String) || !(range.get("start") instanceof Long)
          || !(range.get("end") instanceof Long)) {
        return null;
      }
      bounds.add(new long[] {(Long) range.get("start"), (Long) range.get("end"), owners.size()});
      owners.add((String) range.get("variant"));
    }
    // The lookup is a binary search over ranges ordered by start.
    bounds.sort((a, b) -> Long.compare(a[0], b[0]));
    long[] starts = new long[bounds.size()];
    long[] ends = new long[bounds.size()];
    String[] sortedOwners = new String[bounds.size()];
    for (int i = 0; i < bounds.size(); i++) {
      starts[i] = bounds.get(i)[0];
      ends[i] = bounds.get(i)[1];
      sortedOwners[i] = owners.get((int) bounds.get(i)[2]);
    }
    Map<String, CompiledExperiment.Variant> variants = new HashMap<>();
    for (Object v : (List<?>) e.get("variants")) {
      if (!(v instanceof Map) || !(((Map<?, ?>) v).get("key") instanceof String)) continue;
      Map<?, ?> variant = (Map<?, ?>) v;
      Object prompt = variant.get("prompt");
      Object variables = variant.get("variables");
      variants.put((String) variant.get("key"), new CompiledExperiment.Variant(
          prompt instanceof String ? (String) prompt : null,
          variables instanceof Map ? immutableCopy((Map<?, ?>) variables) : null));
    }
    CompiledExperiment.Lifecycle lifecycle = CompiledExperiment.Lifecycle.of(e, variants);
    if (lifecycle == null) return null;
    double coverage = CompiledExperiment.coverageOf(e);
    if (Double.isNaN(coverage)) return null;
    CompiledExperiment before = previous == null ? null : previous.byKey.get(id);
    return new CompiledExperiment((String) id, (String) name, lifecycle,
        new Bucketer((String) salt, (Long) count), starts, ends, sortedOwners,
        Collections.unmodifiableMap(variants),
        before != null ? before.exposed : new ExposureTable(exposureCapacity), e.get("targeting"),
        savedGroups, gate, fields, (String) salt, coverage);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> immutableCopy(Map<?, ?> variables) {
    return Collections.unmodifiableMap(new LinkedHashMap<>((Map<String, Object>) variables));
  }

  private static String describe(Object raw) {
    if (raw instanceof Map) {
      Object name = ((Map<?, ?>) raw).get("name");
      return String.valueOf(name != null ? name : ((Map<?, ?>) raw).get("id"));
    }
    return String.valueOf(raw);
  }

  @Override
  public String toString() {
    Snapshot s = current;
    return s == null ? "ConfigStore{not loaded}"
        : "ConfigStore{version=" + s.version + ", keys=" + Arrays.toString(s.byKey.keySet().toArray()) + "}";
  }
}
