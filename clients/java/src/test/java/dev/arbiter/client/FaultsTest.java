package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The client against a fault-injecting HttpServer: never throws, nothing lost, nothing doubled. */
class FaultsTest {
  private FakeArbiter fake;
  @TempDir Path dir;
  private Path storePath;
  private MemoryLogger logger;
  private final List<Arbiter> clients = new ArrayList<>();

  @BeforeEach
  void start() throws IOException {
    fake = new FakeArbiter(Configs.doc(1, List.of(Configs.twoArms())));
    storePath = dir.resolve("spill").resolve("events.ndjson");
    logger = new MemoryLogger();
  }

  @AfterEach
  void stop() {
    clients.forEach(Arbiter::close);
    fake.close();
  }

  /** Short delays everywhere; the background interval is pushed out so only flush() sends. */
  private Arbiter client(Consumer<Arbiter.Builder> extra) {
    Arbiter.Builder b = Arbiter.builder()
        .apiKey(fake.apiKey)
        .baseUrl(fake.baseUrl())
        .logger(logger)
        .trackExposures(false)
        .offlineStorePath(storePath)
        .pollInterval(Duration.ofMillis(3_600_000))
        .flushInterval(Duration.ofMillis(3_600_000))
        // Long enough that a slow machine never times out a healthy request.
        .requestTimeout(Duration.ofMillis(1_000))
        .maxAttempts(3)
        .retryBaseDelay(Duration.ofMillis(1))
        .retryMaxDelay(Duration.ofMillis(5))
        .retryAfterCap(Duration.ofMillis(20))
        .closeTimeout(Duration.ofMillis(5_000))
        .sendFullBatches(false);
    extra.accept(b);
    Arbiter c = b.build();
    clients.add(c);
    return c;
  }

  private Arbiter client() {
    return client(b -> {});
  }

  static void trackSome(Arbiter c, int n, String prefix) {
    for (int i = 0; i < n; i++) c.trackBusinessEvent(Configs.EXPERIMENT, prefix + "-" + i, "revenue", i);
  }

  private List<Map<String, Object>> spilled() throws IOException {
    List<Map<String, Object>> out = new ArrayList<>();
    if (!Files.exists(storePath)) return out;
    for (String line : Files.readAllLines(storePath, StandardCharsets.UTF_8)) {
      if (line.isEmpty()) continue;
      try {
        @SuppressWarnings("unchecked")
        Map<String, Object> e = (Map<String, Object>) JsonReader.parse(line);
        out.add(e);
      } catch (IllegalArgumentException torn) {
        out.add(Map.of("torn", line));
      }
    }
    return out;
  }

  /** Every delivery carried the same ids, and each of them is stored exactly once. */
  private void assertSameIdsEveryTime(int deliveries, int count) {
    assertEquals(deliveries, fake.deliveries.size());
    List<String> first = fake.deliveries.get(0);
    assertEquals(count, first.size());
    for (List<String> d : fake.deliveries) assertEquals(first, d);
    assertEquals(count, fake.events.size());
    for (String id : first) assertTrue(fake.events.containsKey(id));
  }

  private static void assertStats(ArbiterStats s, long sent, long dropped, long spilled) {
    assertEquals(sent, s.sent(), "sent " + s);
    assertEquals(dropped, s.dropped(), "dropped " + s);
    assertEquals(spilled, s.spilled(), "spilled " + s);
  }

  @Test
  void retries500sWithTheSameEventIdsAndDeliversOnce() {
    Arbiter c = client();
    fake.faults.add(FakeArbiter.Fault.status(500));
    fake.faults.add(FakeArbiter.Fault.status(503));
    trackSome(c, 4, "u");
    c.flush().join();
    assertSameIdsEveryTime(3, 4);
    assertStats(c.stats(), 4, 0, 0);
  }

  @Test
  void retriesARequestThatTimesOut() {
    Arbiter c = client(b -> b.requestTimeout(Duration.ofMillis(300)));
    fake.faults.add(FakeArbiter.Fault.of(FakeArbiter.FaultKind.HANG));
    fake.faults.add(FakeArbiter.Fault.of(FakeArbiter.FaultKind.HANG));
    trackSome(c, 3, "u");
    c.flush().join();
    assertSameIdsEveryTime(3, 3);
    assertEquals(3, c.stats().sent());
  }

  @Test
  void retries429HonouringRetryAfterAnd408() {
    Arbiter c = client(b -> b.retryAfterCap(Duration.ofMillis(30_000)));
    fake.faults.add(FakeArbiter.Fault.status(429, "1"));
    fake.faults.add(FakeArbiter.Fault.status(408));
    trackSome(c, 2, "u");
    long started = System.nanoTime();
    c.flush().join();
    long waitedMs = (System.nanoTime() - started) / 1_000_000;
    assertSameIdsEveryTime(3, 2);
    // The second attempt waited the server's second, not the 1 ms backoff.
    assertTrue(waitedMs >= 1_000, "waited " + waitedMs + " ms");
  }

  @Test
  void resendsABatchWhoseAckWasLostAndTheServerKeepsOneCopy() {
    Arbiter c = client();
    fake.faults.add(FakeArbiter.Fault.of(FakeArbiter.FaultKind.STORE_THEN_RESET));
    trackSome(c, 5, "u");
    c.flush().join();
    assertSameIdsEveryTime(2, 5);
    assertStats(c.stats(), 5, 0, 0);
  }

  @Test
  void doesNotRetryA400TheBatchIsDroppedWithOneLogLine() throws IOException {
    Arbiter c = client();
    fake.faults.add(FakeArbiter.Fault.status(400));
    trackSome(c, 3, "u");
    c.flush().join();
    assertEquals(1, fake.deliveries.size());
    assertStats(c.stats(), 0, 3, 0);
    assertEquals(1, logger.count("dropped 3 events"));
    assertTrue(spilled().isEmpty());
  }

  @Test
  void stopsAfterMaxAttempts() {
    Arbiter c = client(b -> b.maxAttempts(2));
    fake.failNext(5, 502);
    trackSome(c, 1, "u");
    c.flush().join();
    assertEquals(2, fake.deliveries.size());
    assertEquals(1, c.stats().spilled());
  }

  @Test
  void spillsWhenEveryAttemptFailsThenReplaysWithOriginalIdsAndTimestamps() throws IOException {
    Arbiter c = client();
    fake.failNext(3, 503);
    trackSome(c, 4, "u");
    c.flush().join();
    List<Map<String, Object>> onDisk = spilled();
    assertEquals(4, onDisk.size());
    assertEquals(0, fake.events.size());
    assertStats(c.stats(), 0, 0, 4);

    c.flush().join();
    assertEquals(4, c.stats().replayed());
    assertEquals(4, c.stats().sent());
    for (Map<String, Object> e : onDisk) assertEquals(e, fake.events.get((String) e.get("event_id")));
    assertTrue(spilled().isEmpty());
    // Three failed attempts and the replay, all with the same ids.
    assertSameIdsEveryTime(4, 4);
  }

  @Test
  void spillsWhenTheConnectionIsRefusedAndReplaysWhenTheServerIsBack() throws Exception {
    Arbiter c = client();
    assertTrue(c.ready().get());
    fake.stop();
    trackSome(c, 3, "u");
    c.flush().join();
    assertEquals(3, spilled().size());
    assertTrue(logger.all().contains("ConnectException"), logger.all());
    fake.start();
    c.flush().join();
    assertEquals(3, fake.events.size());
    assertTrue(spilled().isEmpty());
  }

  @Test
  void survivesAServerThatDiesMidFlushNothingLostNothingDoubled() throws Exception {
    // Every batch waits for flush(): a full batch's own drain could otherwise start between
    // two track() calls and split the six events across two flushes.
    Arbiter c = client(b -> b.batchSize(2).sendFullBatches(false));
    assertTrue(c.ready().get());
    fake.faults.add(FakeArbiter.Fault.of(FakeArbiter.FaultKind.STORE_THEN_DIE));
    trackSome(c, 6, "u");
    c.flush().join();
    // The first batch reached the store before the crash; its ack was lost, so it is spilled
    // too, with the two batches never tried.
    assertEquals(2, fake.events.size());
    assertEquals(6, spilled().size());
    fake.start();
    c.flush().join();
    assertEquals(6, fake.events.size());
    List<String> crashed = fake.deliveries.get(0);
    Set<String> replayed = new HashSet<>();
    List<String> all = new ArrayList<>();
    for (List<String> d : fake.deliveries.subList(1, fake.deliveries.size())) all.addAll(d);
    replayed.addAll(all);
    assertTrue(replayed.containsAll(crashed));
    assertEquals(6, replayed.size());
    assertEquals(6, all.size(), "each spilled event replayed once");
    assertTrue(spilled().isEmpty());
  }

  @Test
  void afterAFailedBatchSpillsTheRestOfTheDrainWithoutTryingIt() throws IOException {
    Arbiter c = client(b -> b.batchSize(2));
    fake.failNext(3, 500);
    trackSome(c, 6, "u");
    c.flush().join();
    assertEquals(3, fake.deliveries.size());
    assertEquals(6, spilled().size());
  }

  @Test
  void replaysWhatAPreviousProcessLeftDiscardingEventsOlderThan24h() throws IOException {
    long now = System.currentTimeMillis();
    Map<String, Object> fresh1 = spilledEvent("fresh-1", now - 60_000);
    Map<String, Object> fresh2 = spilledEvent("fresh-2", now - 23 * 3_600_000L);
    Map<String, Object> stale = spilledEvent("stale-1", now - 25 * 3_600_000L);
    Files.createDirectories(storePath.getParent());
    // Written the way the TypeScript client writes it; a line cut short by a crash is skipped.
    String lines = JsonWriter.write(stale) + "\n" + JsonWriter.write(fresh1) + "\n"
        + JsonWriter.write(fresh2) + "\n{\"event_id\":\"torn";
    Files.writeString(storePath, lines);
    Arbiter c = client();
    c.flush().join();
    assertEquals(Set.of("fresh-1", "fresh-2"), fake.events.keySet());
    assertEquals(fresh2, fake.events.get("fresh-2"));
    assertEquals(2, c.stats().replayed());
    assertEquals(1, c.stats().expired());
    assertEquals(1, logger.count("older than the 24 h"));
    assertTrue(spilled().isEmpty());
  }

  @Test
  void appendsAfterATornLineOnALineOfItsOwn() throws IOException {
    Files.createDirectories(storePath.getParent());
    Files.writeString(storePath, "{\"event_id\":\"torn");
    Arbiter c = client();
    fake.stop();
    trackSome(c, 2, "u");
    c.flush().join();
    List<Map<String, Object>> lines = spilled();
    assertEquals(3, lines.size());
    assertEquals(Map.of("torn", "{\"event_id\":\"torn"), lines.get(0));
    assertEquals("business_event", lines.get(1).get("type"));
    assertEquals("business_event", lines.get(2).get("type"));
  }

  @Test
  void replaysInTheBackgroundOnceTheApiIsBack() throws Exception {
    Arbiter c = client(b -> b.flushInterval(Duration.ofMillis(10)));
    fake.failNext(3, 500);
    trackSome(c, 2, "u");
    c.flush().join();
    Wait.until(() -> fake.events.size() == 2);
    Wait.until(() -> {
      try {
        return spilled().isEmpty();
      } catch (IOException e) {
        return false;
      }
    });
  }

  @Test
  void dropsWithOneLogLinePerBatchWhenThereIsNoOfflineStore() {
    Arbiter c = client(b -> b.offlineStorePath((Path) null).batchSize(3));
    fake.failNext(3, 500);
    trackSome(c, 6, "u");
    c.flush().join();
    assertStats(c.stats(), 0, 6, 0);
    assertEquals(2, logger.count("dropped 3 events"));
  }

  @Test
  void countsWhatAFullQueueDropsWithOneLogLineForTheStretch() {
    Arbiter c = client(b -> b.queueCapacity(5));
    trackSome(c, 8, "u");
    assertEquals(5, c.stats().queued());
    assertEquals(3, c.stats().dropped());
    assertEquals(1, logger.count("queue full"));
    c.flush().join();
    assertEquals(5, fake.events.size());
  }

  @Test
  void badArgumentsNeverThrow() {
    Arbiter c = client(b -> b.offlineStorePath((Path) null));
    c.track((EventType) null, Map.of());
    c.track(EventType.BUSINESS_EVENT, null);
    c.track((EventType) null, null);
    c.track(EventType.BUSINESS_EVENT, Map.of("experiment_id", "x", "user_id", "u"));
    Map<String, Object> weird = new LinkedHashMap<>();
    weird.put("experiment_id", Configs.EXPERIMENT);
    weird.put("user_id", "u");
    weird.put("business_metric", "m");
    weird.put("value", 1);
    weird.put("metadata", Map.of("thing", new Object()));
    c.track(EventType.BUSINESS_EVENT, weird);
    assertNull(c.assign(null, null));
    assertNull(c.assign(Configs.EXPERIMENT, null));
    assertEquals("d", c.getPrompt(null, null, "d").prompt());
    assertEquals(Map.of("a", 1), c.getVariables(null, null, Map.of("a", 1)));
    assertEquals(0, c.stats().queued());
    assertEquals(5, logger.count("event dropped"));
  }

  @Test
  void keepsServingTheLastConfigWhileTheApiIsUnreachableLoggingOnce() throws Exception {
    Arbiter c = client(b -> b.pollInterval(Duration.ofMillis(5)).maxAttempts(1));
    assertTrue(c.ready().get());
    String before = c.assign(Configs.EXPERIMENT, "user-7");
    assertNotNull(before);
    int served = fake.configRequests.size();
    fake.stop();
    Wait.until(() -> logger.count("config refresh failed") >= 1);
    Thread.sleep(100);
    assertEquals(before, c.assign(Configs.EXPERIMENT, "user-7"));
    assertEquals(1, logger.count("config refresh failed"));
    fake.start();
    Wait.until(() -> fake.configRequests.size() > served);
    Wait.until(() -> logger.count("reachable again") >= 1);
    assertEquals(before, c.assign(Configs.EXPERIMENT, "user-7"));
    // Unchanged polls send the ETag and cost a 304.
    Wait.until(() -> fake.configRequests.stream().anyMatch(r -> r[1].equals("304")));
  }

  @Test
  void closeDeliversWhatIsQueuedAndLaterEventsAreDroppedAndCounted() {
    Arbiter c = client();
    trackSome(c, 7, "u");
    c.close();
    assertEquals(7, fake.events.size());
    c.trackBusinessEvent("x", "u", "m", 1);
    assertEquals(0, c.stats().queued());
    assertEquals(1, c.stats().dropped());
    c.close();
  }

  @Test
  void closeSpillsWhatItCannotDeliverBeforeItsDeadline() throws IOException {
    Arbiter c = client(b -> b.closeTimeout(Duration.ofMillis(300)).retryAfterCap(Duration.ofMillis(60_000)));
    fake.faults.add(FakeArbiter.Fault.status(429, "60"));
    trackSome(c, 4, "u");
    c.close();
    assertEquals(4, spilled().size());
    assertEquals(4, c.stats().spilled());
    assertEquals(0, fake.events.size());
  }

  private static Map<String, Object> spilledEvent(String id, long atMs) {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("experiment_id", Configs.EXPERIMENT);
    e.put("user_id", "u-1");
    e.put("business_metric", "revenue");
    e.put("value", 3L);
    e.put("event_id", id);
    e.put("type", "business_event");
    e.put("timestamp", Instant.ofEpochMilli(atMs).toString());
    return e;
  }

  @Test
  void theFirstLoadFailingResolvesReadyFalseAndAssignsNull() throws Exception {
    fake.stop();
    Arbiter c = client(b -> b.maxAttempts(1).experiments(Configs.EXPERIMENT));
    assertFalse(c.ready().get());
    assertNull(c.assign(Configs.EXPERIMENT, "u"));
    assertEquals(1, logger.count("config could not be loaded"));
  }
}
