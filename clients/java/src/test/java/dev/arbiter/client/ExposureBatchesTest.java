package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Exposure checks decided in batches (a table past the L2 cache; here every table, through the
 * tests' {@code exposureBatchFromSlots(0)}): once per user and day under many threads, before
 * the thread's later events, delivered by {@code flush()}, {@code stats()} and {@code close()}
 * when the thread that made the calls has gone quiet, and stamped on the day of their calls.
 */
class ExposureBatchesTest {
  /** 2026-11-25T00:00:00Z. */
  private static final long DAY_START = 1_795_564_800_000L;

  private FakeArbiter fake;
  private final AtomicLong now = new AtomicLong(DAY_START + 13 * 3_600_000L);
  private final List<Arbiter> clients = new ArrayList<>();

  @BeforeEach
  void start() throws IOException {
    fake = new FakeArbiter(Configs.doc(1, List.of(Configs.twoArms())));
  }

  @AfterEach
  void stop() {
    clients.forEach(Arbiter::close);
    fake.close();
  }

  private Arbiter ready(Arbiter.Builder b) throws Exception {
    Arbiter c = b.apiKey(fake.apiKey).baseUrl(fake.baseUrl()).logger(new MemoryLogger())
        .pollInterval(Duration.ofHours(1)).flushInterval(Duration.ofHours(1))
        .sendFullBatches(false).clock(now::get).build();
    clients.add(c);
    assertTrue(c.ready().get());
    return c;
  }

  private Arbiter batched() throws Exception {
    return ready(Arbiter.builder().exposureBatchFromSlots(0));
  }

  private List<Map<String, Object>> stored(String type) {
    return fake.events.values().stream().filter(e -> type.equals(e.get("type")))
        .collect(Collectors.toList());
  }

  /** The types of the delivered events, in the order they reached the server. */
  private List<String> deliveredTypes() {
    List<String> types = new ArrayList<>();
    synchronized (fake.deliveries) {
      for (List<String> ids : fake.deliveries) {
        for (String id : ids) types.add((String) fake.events.get(id).get("type"));
      }
    }
    return types;
  }

  private static String enrolledUser(Arbiter c, int from) {
    for (int i = from;; i++) {
      if (c.assign(Configs.EXPERIMENT, "user-" + i) != null) return "user-" + i;
    }
  }

  private static Map<String, Object> conversion(String user) {
    return new HashMap<>(Map.of("experiment_id", Configs.EXPERIMENT, "user_id", user,
        "business_metric", "revenue", "value", 5));
  }

  /** Runs {@code task} on a thread of its own, which then ends. */
  private static void onAnotherThread(Runnable task) throws InterruptedException {
    Thread t = new Thread(task);
    t.start();
    t.join();
  }

  @Test
  void manyThreadsOverTheSameUsersSendOneExposureEach() throws Exception {
    Arbiter c = batched();
    int threads = 4;
    int users = 3_000;
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> started = new ArrayList<>();
    Map<String, String> variants = new java.util.concurrent.ConcurrentHashMap<>();
    for (int t = 0; t < threads; t++) {
      int offset = t * 700;
      Thread worker = new Thread(() -> {
        try {
          go.await();
        } catch (InterruptedException e) {
          return;
        }
        // Each thread walks every user from its own starting point, twice.
        for (int k = 0; k < 2 * users; k++) {
          String user = "user-" + (offset + k) % users;
          String variant = c.assign(Configs.EXPERIMENT, user);
          if (variant != null) variants.put(user, variant);
        }
      });
      worker.start();
      started.add(worker);
    }
    go.countDown();
    for (Thread t : started) t.join();
    c.flush().join();
    Map<String, Integer> perUser = new HashMap<>();
    for (Map<String, Object> e : stored("exposure")) {
      perUser.merge((String) e.get("user_id"), 1, Integer::sum);
      assertEquals(variants.get(e.get("user_id")), e.get("variant"));
    }
    assertTrue(variants.size() > users / 2, "most users enrolled: " + variants.size());
    assertEquals(variants.keySet(), perUser.keySet());
    assertTrue(perUser.values().stream().allMatch(n -> n == 1), "one exposure each: " + perUser);
    assertEquals(variants.size(), c.stats().sent());
    assertEquals(0, c.stats().dropped());
  }

  @Test
  void aThreadsExposureReachesTheServerBeforeItsLaterConversion() throws Exception {
    Arbiter c = batched();
    String user = enrolledUser(c, 0);
    c.track(EventType.BUSINESS_EVENT, conversion(user));
    c.flush().join();
    assertEquals(List.of("exposure", "business_event"), deliveredTypes());
  }

  @Test
  void aQuietThreadsBatchIsDeliveredByTheNextFlush() throws Exception {
    Arbiter c = batched();
    String[] user = new String[1];
    onAnotherThread(() -> user[0] = enrolledUser(c, 0));
    // Another thread's conversion is queued at once; the quiet thread's exposure waits for the
    // flush, which decides every thread's batch first.
    c.track(EventType.BUSINESS_EVENT, conversion(user[0]));
    c.flush().join();
    assertEquals(List.of("business_event", "exposure"), deliveredTypes());
    assertEquals(1, stored("exposure").size());
  }

  @Test
  void aSmallTableQueuesTheExposureWithItsCall() throws Exception {
    Arbiter c = ready(Arbiter.builder());
    String[] user = new String[1];
    onAnotherThread(() -> user[0] = enrolledUser(c, 0));
    c.track(EventType.BUSINESS_EVENT, conversion(user[0]));
    c.flush().join();
    assertEquals(List.of("exposure", "business_event"), deliveredTypes());
  }

  @Test
  void statsCountsAQuietThreadsBatchAsQueued() throws Exception {
    Arbiter c = batched();
    onAnotherThread(() -> {
      enrolledUser(c, 0);
      enrolledUser(c, 1_000);
    });
    assertEquals(2, c.stats().queued());
  }

  @Test
  void closeDeliversTheBatchesOfEveryThread() throws Exception {
    Arbiter c = batched();
    List<String> users = new ArrayList<>();
    onAnotherThread(() -> users.add(enrolledUser(c, 0)));
    users.add(enrolledUser(c, 1_000));
    c.close();
    List<String> exposed = stored("exposure").stream().map(e -> (String) e.get("user_id"))
        .sorted().collect(Collectors.toList());
    users.sort(null);
    assertEquals(users, exposed);
    assertEquals(0, c.stats().dropped());
  }

  @Test
  void aBatchDecidedAfterMidnightKeepsItsCallsDay() throws Exception {
    Arbiter c = batched();
    String before = enrolledUser(c, 0);
    // The flush comes after midnight: the exposure is still stamped on its call's day.
    now.set(DAY_START + 86_400_000L + 5_000);
    c.flush().join();
    // The same user's first call of the new day is sent again, stamped on that day; a new call
    // decides the batch of the day before first.
    String again = c.assign(Configs.EXPERIMENT, before);
    assertNotNull(again);
    String after = enrolledUser(c, 1_000);
    c.flush().join();
    List<String> days = stored("exposure").stream()
        .map(e -> e.get("user_id") + "/" + ((String) e.get("timestamp")).substring(0, 10))
        .sorted().collect(Collectors.toList());
    List<String> expected = new ArrayList<>(List.of(before + "/2026-11-25",
        before + "/2026-11-26", after + "/2026-11-26"));
    expected.sort(null);
    assertEquals(expected, days);
  }

  @Test
  void aCallOnANewDayDecidesTheBatchOfTheDayBefore() throws Exception {
    Arbiter c = batched();
    String first = enrolledUser(c, 0);
    now.set(DAY_START + 86_400_000L + 5_000);
    // The same user on the new day: the batch of the day before is decided on its own day.
    c.assign(Configs.EXPERIMENT, first);
    c.flush().join();
    List<String> stamped = stored("exposure").stream()
        .map(e -> ((String) e.get("timestamp")).substring(0, 10)).sorted()
        .collect(Collectors.toList());
    assertEquals(List.of("2026-11-25", "2026-11-26"), stamped);
    assertEquals("2026-11-25T23:59:59.999Z", stored("exposure").stream()
        .map(e -> (String) e.get("timestamp")).sorted().findFirst().get());
  }

  @Test
  void exposuresWithAttributesAreNotBatched() throws Exception {
    Arbiter c = ready(Arbiter.builder().exposureBatchFromSlots(0).exposureAttributes(true));
    String[] user = new String[1];
    onAnotherThread(() -> {
      for (int i = 0; user[0] == null; i++) {
        if (c.assign(Configs.EXPERIMENT, "user-" + i, Map.of("plan", "pro")) != null) {
          user[0] = "user-" + i;
        }
      }
    });
    c.track(EventType.BUSINESS_EVENT, conversion(user[0]));
    c.flush().join();
    assertEquals(List.of("exposure", "business_event"), deliveredTypes());
    assertEquals(Map.of("attributes", Map.of("plan", "pro")),
        stored("exposure").get(0).get("metadata"));
  }

  /**
   * Each thread's ring stays in its thread-local map after the client is gone: once closed, it
   * must hold none of the calls, whose experiments keep their exposure tables alive.
   */
  @Test
  void aClosedClientsRingsKeepNoExperimentAlive() throws Exception {
    WeakReference<CompiledExperiment> experiment = batchOnThisThreadAndClose();
    for (int i = 0; i < 50 && experiment.get() != null; i++) {
      System.gc();
      Thread.sleep(20);
    }
    assertNull(experiment.get(), "the closed batches still reach the experiment");
  }

  /** One experiment's compiled entry, and enrolled users of it with their fingerprints. */
  private static final class Calls {
    final CompiledExperiment entry;
    final List<String> users = new ArrayList<>();
    final List<Integer> ranges = new ArrayList<>();

    Calls(int count) {
      ConfigStore store = new ConfigStore(1_000);
      store.replace(JsonReader.parse(JsonWriter.write(Configs.doc(1, List.of(Configs.twoArms())))),
          null);
      entry = store.lookup(Configs.EXPERIMENT);
      for (int i = 0; users.size() < count; i++) {
        String user = "user-" + i;
        int range = entry.rangeOf(entry.bucketer.hashOf(user));
        if (range < 0) continue;
        users.add(user);
        ranges.add(range);
      }
    }

    void add(ExposureBatches batches, int i) {
      String user = users.get(i);
      int hash = entry.bucketer.hashOf(user);
      batches.add(entry, user, ranges.get(i), entry.fingerprint(hash, user, ranges.get(i)),
          DAY_START);
    }
  }

  /**
   * Runs {@code calls} on a thread of its own, which then decides its batch, while another
   * thread decides every batch over and over (as flushes would); then decides what is left.
   */
  private static void callWhileAThreadDecidesEveryBatch(ExposureBatches batches, Runnable calls)
      throws InterruptedException {
    CountDownLatch done = new CountDownLatch(1);
    Thread flusher = new Thread(() -> {
      while (done.getCount() > 0) batches.decideAll();
    });
    flusher.start();
    onAnotherThread(() -> {
      calls.run();
      batches.decideMine();
    });
    done.countDown();
    flusher.join();
    batches.decideAll();
  }

  @Test
  void aCallIsDecidedOnceWhileAnotherThreadDecidesEveryBatch() throws Exception {
    Calls calls = new Calls(20_000);
    List<String> decided = new ArrayList<>();
    // No exposure table here: a call decided twice would be counted twice.
    ExposureBatches batches = new ExposureBatches((e, user, range, fp, dayTime, latest) -> {
      synchronized (decided) {
        decided.add(user);
      }
    }, 0);
    callWhileAThreadDecidesEveryBatch(batches, () -> {
      for (int i = 0; i < calls.users.size(); i++) calls.add(batches, i);
    });
    assertEquals(calls.users.size(), decided.size(), "each call decided once");
    assertTrue(calls.users.equals(decided), "in the order the calls were made");
  }

  @Test
  void aBatchOfSeveralExperimentsDecidesEachCallWithItsOwn() throws Exception {
    // Two compiled entries (two config stores): distinct experiments to the batches.
    Calls[] experiments = {new Calls(10_000), new Calls(10_000)};
    java.util.Random random = new java.util.Random(7);
    List<String> made = new ArrayList<>();
    List<String> decided = new ArrayList<>();
    ExposureBatches batches = new ExposureBatches((e, user, range, fp, dayTime, latest) -> {
      synchronized (decided) {
        decided.add((e == experiments[0].entry ? "a " : "b ") + user);
      }
    }, 0);
    callWhileAThreadDecidesEveryBatch(batches, () -> {
      // Runs of one experiment, of any length, some batches of one, some mixed mid-way.
      int which = 0;
      for (int i = 0; i < 10_000; i++) {
        if (random.nextInt(40) == 0) which = 1 - which;
        experiments[which].add(batches, i);
        made.add((which == 0 ? "a " : "b ") + experiments[which].users.get(i));
      }
    });
    assertEquals(made.size(), decided.size(), "each call decided once");
    assertTrue(made.equals(decided), "with its own experiment, in the order made");
  }

  @Test
  void threadsPastTheArrayOfRingsAreBatchedAndDecidedToo() throws Exception {
    int threads = 300;
    Calls calls = new Calls(threads * 3);
    Map<String, Integer> decided = new HashMap<>();
    ExposureBatches batches = new ExposureBatches((e, user, range, fp, dayTime, latest) -> {
      synchronized (decided) {
        decided.merge(user, 1, Integer::sum);
      }
    }, 0);
    CountDownLatch added = new CountDownLatch(threads);
    CountDownLatch release = new CountDownLatch(1);
    List<Thread> started = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int first = t * 3;
      // All alive at once, so that threads whose ids share a slot hold rings side by side.
      Thread thread = new Thread(() -> {
        for (int i = first; i < first + 3; i++) calls.add(batches, i);
        added.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      thread.start();
      started.add(thread);
    }
    added.await();
    assertTrue(decided.isEmpty(), "a batch of three calls waits for its thread or a flush");
    batches.decideAll();
    release.countDown();
    for (Thread thread : started) thread.join();
    assertEquals(calls.users.size(), decided.size(), "every thread's calls were found");
    assertTrue(decided.values().stream().allMatch(n -> n == 1), "and decided once each");
    batches.decideAll();
    assertEquals(calls.users.size(), decided.size(), "ended threads leave nothing behind");
  }

  private static WeakReference<CompiledExperiment> batchOnThisThreadAndClose() {
    Calls calls = new Calls(10);
    List<String> decided = new ArrayList<>();
    ExposureBatches batches =
        new ExposureBatches((e, user, range, fp, dayTime, latest) -> decided.add(user), 0);
    for (int i = 0; i < calls.users.size(); i++) calls.add(batches, i);
    batches.close();
    assertEquals(calls.users, decided, "close() decides what was published");
    assertFalse(batches.batches(calls.entry), "a closed client checks its calls one by one");
    return new WeakReference<>(calls.entry);
  }

}
