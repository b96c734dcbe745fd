package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Holdouts and layers beyond the shared vectors: a holdout's exposure once a day across the
 * experiments it applies to and across config versions, none with exposures off, and configs
 * whose layers or holdouts cannot be read, which never throw into the caller.
 */
class HoldoutsAndLayersTest {
  /** 2026-11-25T13:00:00Z. */
  private static final long NOON = 1_795_564_800_000L + 13 * 3_600_000L;
  private static final String HOLDOUT_ID = "00000000-0000-4000-8000-00000000b001";
  private static final String OTHER_ID = "00000000-0000-4000-8000-0000000000e2";
  /** Holds out the users whose bucket of 100 is below 50. */
  private static final Bucketer HOLDOUT = new Bucketer("h-salt", 100);

  private FakeArbiter fake;
  private final AtomicLong now = new AtomicLong(NOON);
  private final List<Arbiter> clients = new ArrayList<>();
  private final MemoryLogger logger = new MemoryLogger();

  @BeforeEach
  void start() throws IOException {
    fake = new FakeArbiter(twoExperimentsHeldOut(1));
  }

  @AfterEach
  void stop() {
    clients.forEach(Arbiter::close);
    fake.close();
  }

  private static Map<String, Object> holdout(String id, Object ranges) {
    Map<String, Object> h = new LinkedHashMap<>();
    h.put("id", id);
    h.put("name", "holdout " + id);
    h.put("salt", "h-salt");
    h.put("bucket_count", 100L);
    h.put("ranges", ranges);
    return h;
  }

  private static Map<String, Object> bucketRange(long start, long end) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("start", start);
    r.put("end", end);
    return r;
  }

  /** checkout-prompt and "other" (the same arms), both under one holdout of half the users. */
  private static Map<String, Object> twoExperimentsHeldOut(long version) {
    Map<String, Object> first = Configs.twoArms();
    first.put("holdouts", List.of(HOLDOUT_ID));
    Map<String, Object> other = Configs.experiment(OTHER_ID, "other", "s-other", 1000,
        List.of(Configs.range("control", 0, 500), Configs.range("treatment", 500, 1000)));
    other.put("holdouts", List.of(HOLDOUT_ID));
    Map<String, Object> doc = Configs.doc(version, List.of(first, other));
    doc.put("holdouts", List.of(holdout(HOLDOUT_ID, List.of(bucketRange(0, 50)))));
    return doc;
  }

  private Arbiter ready(Arbiter.Builder b) throws Exception {
    Arbiter c = b.apiKey(fake.apiKey).baseUrl(fake.baseUrl()).logger(logger)
        .flushInterval(Duration.ofHours(1)).sendFullBatches(false).clock(now::get).build();
    clients.add(c);
    assertTrue(c.ready().get());
    return c;
  }

  private static boolean heldOut(String user) {
    return HOLDOUT.bucketOf(user) < 50;
  }

  /** Stored exposures as "experiment/user/variant/yyyy-mm-dd", sorted. */
  private List<String> exposures(Arbiter c) {
    c.flush().join();
    return fake.events.values().stream().filter(e -> "exposure".equals(e.get("type")))
        .map(e -> e.get("experiment_id") + "/" + e.get("user_id") + "/" + e.get("variant") + "/"
            + ((String) e.get("timestamp")).substring(0, 10))
        .sorted().collect(Collectors.toList());
  }

  /** Each of user-0 … user-(n-1) in both experiments, twice; the holdout exposures expected. */
  private static List<String> assignBoth(Arbiter c, int n, String day) {
    List<String> holdoutExposures = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String user = "user-" + i;
      for (int round = 0; round < 2; round++) {
        String first = c.assign(Configs.EXPERIMENT, user);
        String other = c.getPrompt("other", user, "default").variant();
        if (heldOut(user)) {
          assertNull(first, user);
          assertNull(other, user);
        } else {
          assertNotNull(other, user);
        }
      }
      holdoutExposures.add(HOLDOUT_ID + "/" + user + "/" + (heldOut(user) ? "holdout" : "general")
          + "/" + day);
    }
    return holdoutExposures;
  }

  @Test
  void aHoldoutIsRecordedOnceADayAcrossItsExperimentsAndConfigVersions() throws Exception {
    Arbiter c = ready(Arbiter.builder().pollInterval(Duration.ofMillis(20)));
    List<String> expected = assignBoth(c, 60, "2026-11-25");
    assertTrue(expected.stream().anyMatch(e -> e.contains("/holdout/")));
    assertTrue(expected.stream().anyMatch(e -> e.contains("/general/")));
    List<String> holdoutSent = exposures(c).stream().filter(e -> e.startsWith(HOLDOUT_ID))
        .collect(Collectors.toList());
    expected.sort(null);
    assertEquals(expected, holdoutSent);
    // A new config version keeps the holdout's table: nothing is sent again today.
    Map<String, Object> next = twoExperimentsHeldOut(2);
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> experiments =
        new ArrayList<>((List<Map<String, Object>>) next.get("experiments"));
    // Enrols everyone: when it answers, the new version is the one serving.
    experiments.add(Configs.experiment("id-marker", "marker", "s", 1,
        List.of(Configs.range("on", 0, 1))));
    next.put("experiments", experiments);
    fake.setConfig(next);
    Wait.until(() -> c.assign("marker", "user-0") != null);
    int before = exposures(c).size();
    assignBoth(c, 60, "2026-11-25");
    assertEquals(before, exposures(c).size());
    // The next UTC day: once more per user.
    now.set(NOON + 86_400_000L);
    List<String> nextDay = assignBoth(c, 60, "2026-11-26");
    List<String> sentNextDay = exposures(c).stream()
        .filter(e -> e.startsWith(HOLDOUT_ID) && e.endsWith("2026-11-26"))
        .collect(Collectors.toList());
    nextDay.sort(null);
    assertEquals(nextDay, sentNextDay);
  }

  @Test
  void withoutExposuresAHeldOutUserIsStillNullAndNothingIsSent() throws Exception {
    Arbiter c = ready(Arbiter.builder().pollInterval(Duration.ofHours(1)).trackExposures(false));
    assignBoth(c, 40, "2026-11-25");
    assertEquals(List.of(), exposures(c));
  }

  /** One config with every kind of unusable layer and holdout, beside experiments that work. */
  @Test
  void layersAndHoldoutsThatCannotBeReadNeverThrow() throws Exception {
    List<Map<String, Object>> experiments = new ArrayList<>();
    Map<String, Object> plain = Configs.twoArms();
    experiments.add(plain);
    // In a layer whose entry lacks its salt: the config does not carry it, no one enters.
    experiments.add(named("in-broken-layer", "layer", "broken"));
    // Its layer_ranges are not ranges: the experiment is left out.
    Map<String, Object> badRanges = named("bad-layer-ranges", "layer", "ok");
    badRanges.put("layer_ranges", List.of("0-10"));
    experiments.add(badRanges);
    // A layer the whole of which it owns: everyone enters.
    Map<String, Object> whole = named("whole-layer", "layer", "ok");
    whole.put("layer_ranges", List.of(bucketRange(0, 10)));
    experiments.add(whole);
    // A holdout whose ranges cannot be read: left out, rather than skipping the holdout.
    experiments.add(named("broken-holdout", "holdouts", List.of(HOLDOUT_ID)));
    // A holdout id the config does not carry: skipped.
    experiments.add(named("unknown-holdout", "holdouts", List.of(OTHER_ID)));
    experiments.add(named("holdouts-not-a-list", "holdouts", HOLDOUT_ID));
    experiments.add(named("layer-not-a-string", "layer", 7L));
    Map<String, Object> doc = Configs.doc(1, experiments);
    Map<String, Object> okLayer = new LinkedHashMap<>();
    okLayer.put("name", "ok");
    okLayer.put("salt", "l-salt");
    okLayer.put("bucket_count", 10L);
    Map<String, Object> brokenLayer = new LinkedHashMap<>();
    brokenLayer.put("name", "broken");
    brokenLayer.put("bucket_count", 10L);
    doc.put("layers", List.of(okLayer, brokenLayer, "not a layer"));
    doc.put("holdouts", List.of(holdout(HOLDOUT_ID, "all")));
    fake.setConfig(doc);
    Arbiter c = ready(Arbiter.builder().pollInterval(Duration.ofHours(1)));
    Map<String, Integer> enrolled = new LinkedHashMap<>();
    for (Map<String, Object> e : experiments) {
      String name = (String) e.get("name");
      int n = 0;
      for (int i = 0; i < 100; i++) {
        if (c.assign(name, "user-" + i, Map.of("plan", "pro")) != null) n++;
      }
      enrolled.put(name, n);
    }
    Map<String, Integer> want = new LinkedHashMap<>();
    want.put(Configs.EXPERIMENT, enrolled.get(Configs.EXPERIMENT));
    want.put("in-broken-layer", 0);
    want.put("bad-layer-ranges", 0);
    want.put("whole-layer", enrolled.get(Configs.EXPERIMENT));
    want.put("broken-holdout", 0);
    want.put("unknown-holdout", enrolled.get(Configs.EXPERIMENT));
    want.put("holdouts-not-a-list", 0);
    want.put("layer-not-a-string", 0);
    assertEquals(want, enrolled);
    assertTrue(enrolled.get(Configs.EXPERIMENT) > 60, "most users enrolled");
    // Only the experiments' own exposures: no holdout was usable.
    assertTrue(exposures(c).stream().noneMatch(e -> e.startsWith(HOLDOUT_ID)
        || e.startsWith(OTHER_ID)));
    String log = logger.all();
    for (String left : List.of("layer broken", "layer not a layer", "holdout " + HOLDOUT_ID,
        "bad-layer-ranges", "broken-holdout", "holdouts-not-a-list", "layer-not-a-string")) {
      assertTrue(log.contains(left), left + " in " + log);
    }
    assertEquals(0, logger.count("assign failed"));
  }

  /** The same arms as checkout-prompt under another name and id, with one field added. */
  private static Map<String, Object> named(String name, String field, Object value) {
    Map<String, Object> e = Configs.experiment("id-" + name, name, "s-8f2a", 1000,
        List.of(Configs.range("control", 0, 400), Configs.range("treatment", 400, 800)));
    e.put(field, value);
    return e;
  }
}
