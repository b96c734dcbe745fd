package dev.arbiter.client;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Config documents for the fake server, in the wire format of {@code GET /v1/config}. */
final class Configs {
  static final String EXPERIMENT = "checkout-prompt";
  static final String EXPERIMENT_ID = "0b6f1c9e-7c1a-4d3e-9a43-0c1a2b3c4d5e";

  private Configs() {}

  static Map<String, Object> doc(long version, List<Map<String, Object>> experiments) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("config_version", version);
    doc.put("bucketing_version", "1");
    doc.put("experiments", experiments);
    return doc;
  }

  /** control [0, 400), treatment [400, 800) of 1,000 buckets; a fifth of the users not enrolled. */
  static Map<String, Object> twoArms() {
    return experiment(EXPERIMENT_ID, EXPERIMENT, "s-8f2a", 1000,
        List.of(range("control", 0, 400), range("treatment", 400, 800)));
  }

  /** twoArms, then a third arm taking the never-used buckets [800, 1000): sticky for everyone enrolled. */
  static Map<String, Object> threeArms() {
    return experiment(EXPERIMENT_ID, EXPERIMENT, "s-8f2a", 1000,
        List.of(range("control", 0, 400), range("treatment", 400, 800), range("third", 800, 1000)));
  }

  static Map<String, Object> experiment(String id, String name, String salt, long buckets,
      List<Map<String, Object>> ranges) {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("id", id);
    e.put("name", name);
    e.put("version", 1L);
    e.put("salt", salt);
    e.put("bucket_count", buckets);
    e.put("ranges", ranges);
    List<Map<String, Object>> variants = new ArrayList<>();
    for (Map<String, Object> r : ranges) {
      String key = (String) r.get("variant");
      Map<String, Object> v = new LinkedHashMap<>();
      v.put("key", key);
      if (!key.equals("third")) v.put("prompt", "prompt of " + key);
      Map<String, Object> vars = new LinkedHashMap<>();
      vars.put("temperature", key.equals("control") ? 0.7 : 0.2);
      v.put("variables", vars);
      variants.add(v);
    }
    e.put("variants", variants);
    return e;
  }

  static Map<String, Object> range(String variant, long start, long end) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("variant", variant);
    r.put("start", start);
    r.put("end", end);
    return r;
  }
}
