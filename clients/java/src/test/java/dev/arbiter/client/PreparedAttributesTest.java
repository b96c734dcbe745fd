package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link PreparedAttributes} answers as the map it was made from: across a config update whose
 * targeting reads other fields, after the caller changes the map, for values that are no proper
 * attributes, and from many threads sharing one prepared value while the config changes.
 */
class PreparedAttributesTest {
  private static final int USERS = 400;
  private static final String[] PLANS = {"pro", "free", "team"};
  private static final String[] COUNTRIES = {"DE", "US", "FR", "CU"};

  private FakeArbiter fake;
  private Arbiter client;

  /** Version 1 targets by plan; version 2 by country and app version, fields 1 never read. */
  private static Map<String, Object> config(long version) {
    Map<String, Object> experiment = Configs.twoArms();
    experiment.put("targeting", version == 1
        ? Map.of("plan", Map.of("$in", List.of("pro", "team")))
        : Map.of("country", Map.of("$in", List.of("DE", "FR")),
            "app.version", Map.of("$vgte", "2.4.0")));
    return Configs.doc(version, List.of(experiment));
  }

  private static Map<String, Object> attributesOf(int i) {
    Map<String, Object> attributes = new LinkedHashMap<>();
    attributes.put("plan", PLANS[i % 3]);
    attributes.put("country", COUNTRIES[i % 4]);
    attributes.put("app", Map.of("version", "2." + (i % 7) + ".0"));
    return attributes;
  }

  private ReadyClient ready;

  @BeforeEach
  void start() throws Exception {
    // Polled often: the config updates below reach the client within a few polls.
    ready = ReadyClient.start(config(1),
        b -> b.trackExposures(false).pollInterval(Duration.ofMillis(20)));
    fake = ready.fake;
    client = ready.client;
  }

  @AfterEach
  void stop() {
    ready.close();
  }

  private List<String> plainAnswers(List<Map<String, Object>> maps) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < maps.size(); i++) {
      out.add(client.assign(Configs.EXPERIMENT, "user-" + i, maps.get(i)));
    }
    return out;
  }

  private List<String> preparedAnswers(List<PreparedAttributes> prepared) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < prepared.size(); i++) {
      out.add(client.assign(Configs.EXPERIMENT, "user-" + i, prepared.get(i)));
    }
    return out;
  }

  private static final Map<String, Object> ONLY_V2 = Map.of("plan", "free", "country", "DE",
      "app", Map.of("version", "2.5.0"));

  /** Serves version 2 and waits until the client does. */
  private void switchToVersion2() throws InterruptedException {
    fake.setConfig(config(2));
    awaitVersion2();
  }

  /** Waits until a user only version 2 lets in is enrolled. */
  private void awaitVersion2() throws InterruptedException {
    String user = null;
    for (int i = 0; user == null && i < 1_000; i++) {
      if (version2().lookup(Configs.EXPERIMENT).variantOf("probe-" + i, ONLY_V2) != null) {
        user = "probe-" + i;
      }
    }
    String enrolled = user;
    assertTrue(enrolled != null);
    Wait.until(() -> client.assign(Configs.EXPERIMENT, enrolled, ONLY_V2) != null);
  }

  @Test
  void aPreparedValueReusedAcrossAConfigUpdateAnswersAsTheMapUnderTheNewConfig()
      throws Exception {
    List<Map<String, Object>> maps = new ArrayList<>();
    List<PreparedAttributes> prepared = new ArrayList<>();
    for (int i = 0; i < USERS; i++) {
      maps.add(attributesOf(i));
      prepared.add(PreparedAttributes.of(maps.get(i)));
    }
    List<String> before = plainAnswers(maps);
    assertNull(client.assign(Configs.EXPERIMENT, "probe-0", ONLY_V2), "version 1 first");
    assertEquals(before, preparedAnswers(prepared));
    assertEquals(before, preparedAnswers(prepared), "from the kept fields");
    switchToVersion2();
    List<String> after = plainAnswers(maps);
    assertNotEquals(before, after, "version 2 lets other users in");
    assertEquals(after, preparedAnswers(prepared));
    assertEquals(after, preparedAnswers(prepared), "from the fields kept for version 2");
  }

  @Test
  void theTopLevelIsCopiedSoALaterChangeIsNotSeen() {
    String user = null;
    for (int i = 0; user == null && i < 1_000; i++) {
      if (client.assign(Configs.EXPERIMENT, "user-" + i, Map.of("plan", "pro")) != null) {
        user = "user-" + i;
      }
    }
    Map<String, Object> attributes = new HashMap<>(Map.of("plan", "pro"));
    PreparedAttributes prepared = PreparedAttributes.of(attributes);
    attributes.put("plan", "free");
    assertNull(client.assign(Configs.EXPERIMENT, user, attributes));
    assertEquals(client.assign(Configs.EXPERIMENT, user, Map.of("plan", "pro")),
        client.assign(Configs.EXPERIMENT, user, prepared));
    // Before its first use too: a prepared value made from "free" stays "free".
    PreparedAttributes free = PreparedAttributes.of(attributes);
    attributes.put("plan", "pro");
    assertNull(client.assign(Configs.EXPERIMENT, user, free));
  }

  /** A map whose iteration throws, as a map changed by another thread while copied may. */
  private static final class UncopyableMap extends AbstractMap<String, Object> {
    @Override
    public Object get(Object key) {
      return "plan".equals(key) ? "pro" : null;
    }

    @Override
    public Set<Map.Entry<String, Object>> entrySet() {
      throw new IllegalStateException("no iteration");
    }
  }

  @Test
  @SuppressWarnings({"unchecked", "rawtypes"})
  void aBadValueNeverThrowsAndAnswersAsTheMapWould() {
    Map<String, Object> cycle = new HashMap<>();
    cycle.put("plan", cycle);
    Map rawKeys = new HashMap();
    rawKeys.put(1, "x");
    rawKeys.put("plan", "pro");
    Map<String, Object> nulls = new HashMap<>();
    nulls.put("plan", null);
    nulls.put(null, "pro");
    TreeMap<String, Object> caseless = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    caseless.put("PLAN", "pro");
    List<Map<String, ?>> odd = new ArrayList<>();
    odd.add(null);
    odd.add(Map.of());
    odd.add(cycle);
    odd.add((Map<String, ?>) rawKeys);
    odd.add(nulls);
    odd.add(caseless);
    odd.add(new UncopyableMap());
    odd.add(Map.of("plan", new Object()));
    odd.add(Map.of("plan", new StringBuilder("pro")));
    odd.add(Map.of("plan", List.of("free", "pro")));
    odd.add(Map.of("plan", Double.NaN));
    int enrolled = 0;
    for (int k = 0; k < odd.size(); k++) {
      Map<String, ?> attributes = odd.get(k);
      for (int i = 0; i < 20; i++) {
        String user = "user-" + i;
        PreparedAttributes prepared = PreparedAttributes.of(attributes);
        String want = client.assign(Configs.EXPERIMENT, user, attributes);
        // (The maps are named by index: printing the uncopyable one would throw.)
        assertEquals(want, client.assign(Configs.EXPERIMENT, user, prepared), "map " + k);
        assertEquals(want, client.assign(Configs.EXPERIMENT, user, prepared), "kept, map " + k);
        if (want != null) enrolled++;
      }
    }
    assertEquals(want(odd), enrolled, "the maps that match let their enrolled users in");
    assertNull(client.assign(Configs.EXPERIMENT, "user-1", (PreparedAttributes) null));
    // A bare null takes the PreparedAttributes overload (it is a Map too), and reads as none.
    assertNull(client.assign(Configs.EXPERIMENT, "user-1", null));
  }

  @Test
  void itIsAReadOnlyMapOfItsCopy() {
    Map<String, Object> attributes = new LinkedHashMap<>(Map.of("plan", "pro"));
    attributes.put("country", "DE");
    PreparedAttributes prepared = PreparedAttributes.of(attributes);
    assertEquals(attributes, prepared);
    assertEquals(List.of("plan", "country"), new ArrayList<>(prepared.keySet()));
    assertThrows(UnsupportedOperationException.class, () -> prepared.put("plan", "free"));
    assertThrows(UnsupportedOperationException.class, () -> prepared.entrySet().clear());
    assertSame(prepared, PreparedAttributes.of(prepared), "immutable: nothing to copy");
    assertEquals(Map.of(), PreparedAttributes.of(null));
  }

  /** How many of the 20 users of each odd map the plain calls enrolled: some, not all. */
  private int want(List<Map<String, ?>> odd) {
    int enrolled = 0;
    for (Map<String, ?> attributes : odd) {
      for (int i = 0; i < 20; i++) {
        if (client.assign(Configs.EXPERIMENT, "user-" + i, attributes) != null) enrolled++;
      }
    }
    assertTrue(enrolled > 0 && enrolled < odd.size() * 20, "enrolled " + enrolled);
    return enrolled;
  }

  /**
   * Threads share each user's prepared value while the config changes under them: every answer
   * is version 1's or version 2's as the plain maps give them, and once version 2 is served,
   * version 2's, whichever thread resolved the shared value first.
   */
  @Test
  void threadsSharingPreparedValuesAcrossAConfigChangeAnswerAsTheMaps() throws Exception {
    int threads = 8;
    List<Map<String, Object>> maps = new ArrayList<>();
    List<PreparedAttributes> prepared = new ArrayList<>();
    for (int i = 0; i < USERS; i++) {
      maps.add(attributesOf(i));
      prepared.add(PreparedAttributes.of(maps.get(i)));
    }
    List<String> v1 = plainAnswers(maps);
    Map<String, Object> next = config(2);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicInteger wrong = new AtomicInteger();
    AtomicReference<List<String>> v2 = new AtomicReference<>();
    CountDownLatch go = new CountDownLatch(1);
    CyclicBarrier settled = new CyclicBarrier(threads, () -> {
      try {
        awaitVersion2();
        v2.set(plainAnswers(maps));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      Thread worker = new Thread(() -> {
        try {
          go.await();
          // Phase 1: version 1, changed to 2 midway by thread 0 (the answers may be either).
          for (int n = 0; n < 4 * USERS; n++) {
            int i = (thread * 131 + n) % USERS;
            if (thread == 0 && n == USERS) fake.setConfig(next);
            String got = client.assign(Configs.EXPERIMENT, "user-" + i, prepared.get(i));
            if (!java.util.Objects.equals(got, v1.get(i)) && !sameAsVersion2(got, i, maps)) {
              wrong.incrementAndGet();
            }
          }
          settled.await();
          // Phase 2: version 2 served; every answer is version 2's.
          for (int n = 0; n < 4 * USERS; n++) {
            int i = (thread * 131 + n) % USERS;
            String got = client.assign(Configs.EXPERIMENT, "user-" + i, prepared.get(i));
            if (!java.util.Objects.equals(got, v2.get().get(i))) wrong.incrementAndGet();
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      });
      workers.add(worker);
      worker.start();
    }
    go.countDown();
    for (Thread worker : workers) worker.join();
    assertNull(failure.get());
    assertEquals(0, wrong.get());
    assertNotEquals(v1, v2.get(), "version 2 lets other users in");
  }

  /** Version 2's answer for user i, computed from its map on a client of its own config. */
  private boolean sameAsVersion2(String got, int i, List<Map<String, Object>> maps) {
    CompiledExperiment v2 = version2().lookup(Configs.EXPERIMENT);
    String want = v2.variantOf("user-" + i, maps.get(i));
    return java.util.Objects.equals(got, want);
  }

  private static ConfigStore version2Store;

  private static synchronized ConfigStore version2() {
    if (version2Store == null) {
      version2Store = new ConfigStore(1_000);
      version2Store.replace(JsonReader.parse(JsonWriter.write(config(2))), null);
    }
    return version2Store;
  }
}
