package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The targeting tallies (docs/decisions/targeting.md#the-share-of-users-targeting-excluded): the shared
 * vectors of testdata/targeting-tallies.json, the switch, and their delivery to a fake API.
 */
class TargetingTalliesTest {
  private static final Map<String, Object> SHARED = RepoFiles.json("testdata/targeting-tallies.json");
  private static final Map<String, Object> ELIGIBILITY = RepoFiles.json("testdata/eligibility.json");
  private static final Map<String, String> PRO = Map.of("plan", "pro", "locale", "en-US");
  private static final Map<String, String> FREE = Map.of("plan", "free");

  private FakeArbiter fake;
  private Arbiter client;
  private MemoryLogger logger;

  @AfterEach
  void stop() {
    if (client != null) client.close();
    if (fake != null) fake.close();
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> cases() {
    return (List<Map<String, Object>>) ELIGIBILITY.get("cases");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> config() {
    return (Map<String, Object>) ELIGIBILITY.get("config");
  }

  private void start(UnaryOperator<Arbiter.Builder> options) throws Exception {
    // Tallies go with the secret key only.
    start("svc_sk_test", options);
  }

  private void start(String apiKey, UnaryOperator<Arbiter.Builder> options) throws Exception {
    fake = new FakeArbiter(config(), apiKey);
    logger = new MemoryLogger();
    client = options.apply(Arbiter.builder().apiKey(fake.apiKey).baseUrl(fake.baseUrl())
        .logger(logger).pollInterval(Duration.ofHours(1)).flushInterval(Duration.ofHours(1))
        .retryBaseDelay(Duration.ofMillis(1)).retryMaxDelay(Duration.ofMillis(1))).build();
    assertTrue(client.ready().get(30, TimeUnit.SECONDS));
  }

  /** The fake's tallies summed per experiment name, after checking they are all today's. */
  private Map<String, Map<String, Long>> received() {
    Map<String, String> names = new HashMap<>();
    for (Object e : (List<?>) config().get("experiments")) {
      names.put((String) ((Map<?, ?>) e).get("id"), (String) ((Map<?, ?>) e).get("name"));
    }
    String today = LocalDate.now(ZoneOffset.UTC).toString();
    Map<String, Map<String, Long>> out = new TreeMap<>();
    synchronized (fake.tallies) {
      for (Map<String, Object> t : fake.tallies) {
        assertEquals(today, t.get("day"));
        Map<String, Long> sum = out.computeIfAbsent(names.get(t.get("experiment_id")),
            k -> new TreeMap<>(Map.of("matched", 0L, "excluded", 0L)));
        sum.merge("matched", (Long) t.get("matched"), Long::sum);
        sum.merge("excluded", (Long) t.get("excluded"), Long::sum);
      }
    }
    return out;
  }

  private static Map<String, Map<String, Long>> tally(String name, long matched, long excluded) {
    return Map.of(name, Map.of("matched", matched, "excluded", excluded));
  }

  @SuppressWarnings("unchecked")
  private void assignEveryCase() {
    for (Map<String, Object> c : cases()) {
      client.assign((String) c.get("experiment"), (String) c.get("user_id"),
          (Map<String, ?>) c.get("attributes"));
    }
    for (Map<String, Object> c : cases()) {
      client.assign((String) c.get("experiment"), (String) c.get("user_id"), Map.of());
    }
  }

  private long exposures() {
    return fake.events.values().stream().filter(e -> "exposure".equals(e.get("type"))).count();
  }

  @Test
  void reportsTheSharedVectorsDistinctUsersThatReachedEachTargeting() throws Exception {
    start(b -> b);
    assignEveryCase();
    client.flush().join();
    assertEquals(SHARED.get("tallies"), received());
    // Exposures are unchanged by the tallies sharing their table: one per enrolled user.
    assertTrue(exposures() > 0);
  }

  @Test
  void reportsTheSameWithExposuresOffAndTalliesAskedForAndSendsNoExposure() throws Exception {
    start(b -> b.trackExposures(false).trackTargetingTallies(true));
    assignEveryCase();
    client.flush().join();
    assertEquals(SHARED.get("tallies"), received());
    assertEquals(0, fake.events.size());
  }

  @Test
  void talliesNothingByDefaultWithExposuresOff() throws Exception {
    start(b -> b.trackExposures(false));
    assignEveryCase();
    client.flush().join();
    assertEquals(List.of(), fake.tallies);
    assertEquals(0, fake.events.size());
  }

  @Test
  void sendsNothingWithTalliesOffAndTheSameExposures() throws Exception {
    start(b -> b.trackTargetingTallies(false));
    assignEveryCase();
    client.flush().join();
    assertEquals(List.of(), fake.tallies);
    long withoutTallies = exposures();
    client.close();
    fake.close();
    start(b -> b);
    assignEveryCase();
    client.flush().join();
    assertEquals(withoutTallies, exposures());
  }

  @Test
  void aPublishableKeyClientSendsNoTalliesAndWarnsOfNothing() throws Exception {
    start("svc_pk_test", b -> b);
    assignEveryCase();
    client.flush().join();
    client.close();
    assertEquals(0, fake.tallyRequests.get());
    assertEquals(0, logger.count("targeting tallies"), logger.all());
    assertTrue(exposures() > 0);
  }

  @Test
  void talliesAskedForWithAPublishableKeyWarnOnceAtConstructionAndNoneIsSent() throws Exception {
    start("svc_pk_test", b -> b.trackTargetingTallies(true));
    assertEquals(1, logger.count("targeting tallies need the secret key"), logger.all());
    assignEveryCase();
    client.flush().join();
    client.close();
    assertEquals(0, fake.tallyRequests.get());
    assertEquals(1, logger.count("targeting tallies"), logger.all());
  }

  private void oneExcludedOneMatched() {
    client.assign("pro-english", "u-free", FREE);
    client.assign("pro-english", "u-pro", PRO);
  }

  @Test
  void keepsTalliesTheApiCouldNotTakeAndSendsThemMergedWithTheNextFlush() throws Exception {
    start(b -> b.maxAttempts(2));
    fake.tallyFaults.add(503);
    fake.tallyFaults.add(503);
    oneExcludedOneMatched();
    client.flush().join();
    assertEquals(List.of(), fake.tallies);
    client.assign("pro-english", "u-other", FREE);
    client.flush().join();
    assertEquals(tally("pro-english", 1, 2), received());
    assertEquals(1, fake.tallies.size());
  }

  @Test
  void dropsTalliesTheApiRefusesWithAWarning() throws Exception {
    start(b -> b);
    fake.tallyFaults.add(400);
    oneExcludedOneMatched();
    client.flush().join();
    assertEquals(1, logger.count("dropped 1 targeting tallies: the API refused them"));
    // Only what was counted since: the refused tallies were not kept.
    client.assign("pro-english", "u-new", FREE);
    client.flush().join();
    assertEquals(tally("pro-english", 0, 1), received());
  }

  @Test
  void sendsTheTalliesOnClose() throws Exception {
    start(b -> b);
    oneExcludedOneMatched();
    client.close();
    assertEquals(tally("pro-english", 1, 1), received());
  }

  @Test
  void countsAUserOnceOnTheFirstCheckOfTheDayMatchedOrExcluded() throws Exception {
    start(b -> b);
    assertNotNull(client.assign("pro-english", "u-1", PRO));
    client.assign("pro-english", "u-1", FREE);
    client.assign("pro-english", "u-2", FREE);
    assertNotNull(client.assign("pro-english", "u-2", PRO));
    client.assign("pro-english", "u-2", PRO);
    client.flush().join();
    assertEquals(tally("pro-english", 1, 1), received());
    List<Object> exposed = new ArrayList<>();
    fake.events.values().forEach(e -> exposed.add(e.get("user_id")));
    exposed.sort(null);
    assertEquals(List.of("u-1", "u-2"), exposed);
  }

  @Test
  void countsAUserAgainOnceTheFullTableForgotEveryone() throws Exception {
    start(b -> b.exposureDedupCapacity(1));
    for (String user : List.of("a", "b", "a")) client.assign("pro-english", user, FREE);
    client.flush().join();
    assertEquals(tally("pro-english", 0, 3), received());
  }

  @Test
  void countsModelCallsAsAssignDoes() throws Exception {
    start(b -> b);
    assertNull(client.<String>interceptModelCall("pro-english", "m-free", FREE, v -> v));
    assertNotNull(client.interceptModelCall("pro-english", "m-pro", PRO, v -> v));
    client.flush().join();
    assertEquals(tally("pro-english", 1, 1), received());
    // The same users through assign: already counted today, in the same table.
    client.assign("pro-english", "m-free", FREE);
    client.assign("pro-english", "m-pro", PRO);
    client.flush().join();
    assertEquals(tally("pro-english", 1, 1), received());
  }

  /** Threads checking the same users at once: each user is counted once, whoever got there. */
  @Test
  void countsEachUserOnceAcrossThreads() throws Exception {
    start(b -> b);
    int users = 2_000;
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        done.add(pool.submit(() -> {
          for (int i = 0; i < users; i++) {
            client.assign("pro-english", "t-" + i, i % 3 == 0 ? PRO : FREE);
          }
        }));
      }
      for (Future<?> f : done) f.get(60, TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }
    client.flush().join();
    long matched = (users + 2) / 3;
    assertEquals(tally("pro-english", matched, users - matched), received());
  }
}
