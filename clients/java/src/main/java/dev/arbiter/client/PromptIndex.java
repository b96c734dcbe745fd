package dev.arbiter.client;

import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The prompts of one config, indexed for {@link Prompts#get}: each prompt's labels and versions
 * by name, and the experiment that covers it, the first running one in config order with a
 * variant referencing it (docs/wire-format.md#prompts).
 */
final class PromptIndex {
  static final PromptIndex EMPTY = new PromptIndex(Map.of(), Map.of());

  /** A prompt of the config: its labels (label to version) and its versions by number. */
  static final class Entry {
    final Map<?, ?> labels;
    final Map<?, ?> versions;

    Entry(Map<?, ?> labels, Map<?, ?> versions) {
      this.labels = labels;
      this.versions = versions;
    }
  }

  /** The experiment covering a prompt, and the version each of its variants references. */
  static final class Covering {
    final String experimentId;
    final String experimentName;
    final Map<String, Long> versions = new HashMap<>();

    Covering(String experimentId, String experimentName) {
      this.experimentId = experimentId;
      this.experimentName = experimentName;
    }
  }

  final Map<String, Entry> prompts;
  final Map<String, Covering> covering;

  private PromptIndex(Map<String, Entry> prompts, Map<String, Covering> covering) {
    this.prompts = prompts;
    this.covering = covering;
  }

  static PromptIndex of(Map<?, ?> doc) {
    Map<String, Entry> prompts = new HashMap<>();
    if (doc.get("prompts") instanceof Map) {
      for (Map.Entry<?, ?> p : ((Map<?, ?>) doc.get("prompts")).entrySet()) {
        if (!(p.getValue() instanceof Map)) continue;
        Map<?, ?> body = (Map<?, ?>) p.getValue();
        if (body.get("labels") instanceof Map && body.get("versions") instanceof Map) {
          prompts.put(String.valueOf(p.getKey()),
              new Entry((Map<?, ?>) body.get("labels"), (Map<?, ?>) body.get("versions")));
        }
      }
    }
    Map<String, Covering> covering = new HashMap<>();
    Object experiments = doc.get("experiments");
    for (Object raw : experiments instanceof List ? (List<?>) experiments : List.of()) {
      if (!(raw instanceof Map)) continue;
      Map<?, ?> e = (Map<?, ?>) raw;
      Object status = e.get("status");
      if ((status != null && !"running".equals(status)) || !(e.get("variants") instanceof List)) {
        continue;
      }
      for (Object v : (List<?>) e.get("variants")) cover(covering, e, v);
    }
    return new PromptIndex(Collections.unmodifiableMap(prompts),
        Collections.unmodifiableMap(covering));
  }

  /** Records the variant's reference, unless an earlier experiment covers that prompt. */
  private static void cover(Map<String, Covering> covering, Map<?, ?> experiment, Object v) {
    Object ref = v instanceof Map ? ((Map<?, ?>) v).get("prompt_ref") : null;
    if (!(ref instanceof Map)) return;
    Object name = ((Map<?, ?>) ref).get("name");
    Object version = ((Map<?, ?>) ref).get("version");
    if (!(name instanceof String) || !(version instanceof Long)) return;
    String id = String.valueOf(experiment.get("id"));
    Covering entry = covering.computeIfAbsent((String) name,
        k -> new Covering(id, String.valueOf(experiment.get("name"))));
    if (entry.experimentId.equals(id)) {
      entry.versions.put(String.valueOf(((Map<?, ?>) v).get("key")), (Long) version);
    }
  }
}
