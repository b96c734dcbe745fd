package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One client shared by 16 threads calling assign and track while the server changes the config
 * (a third arm appears, sticky for everyone already enrolled) and injects faults: no call
 * throws, every answer is one config version's answer, and every tracked event is stored once.
 */
class ConcurrencyTest {
  private static final int THREADS = 16;
  private static final int EVENTS_PER_THREAD = 2_000;
  private static final int USERS = 1_000;

  @TempDir Path dir;

  private boolean storeIsEmpty() {
    try {
      Path file = dir.resolve("events.ndjson");
      return !java.nio.file.Files.exists(file) || java.nio.file.Files.size(file) == 0;
    } catch (java.io.IOException e) {
      return false;
    }
  }

  @Test
  void sixteenThreadsAssignAndTrackWhileTheConfigChanges() throws Exception {
    Map<String, Object> v1 = Configs.doc(1, List.of(Configs.twoArms()));
    Map<String, Object> v2 = Configs.doc(2, List.of(Configs.threeArms()));
    Bucketer bucketer = new Bucketer("s-8f2a", 1000);
    try (FakeArbiter fake = new FakeArbiter(v1)) {
      MemoryLogger logger = new MemoryLogger();
      Arbiter client = Arbiter.builder().apiKey(fake.apiKey).baseUrl(fake.baseUrl())
          .logger(logger).offlineStorePath(dir.resolve("events.ndjson"))
          .pollInterval(Duration.ofMillis(20)).flushInterval(Duration.ofMillis(20)).batchSize(50).queueCapacity(100_000)
          .retryBaseDelay(Duration.ofMillis(1)).retryMaxDelay(Duration.ofMillis(5)).retryAfterCap(Duration.ofMillis(10)).requestTimeout(Duration.ofMillis(2_000))
          .closeTimeout(Duration.ofMillis(60_000)).build();
      assertTrue(client.ready().get());
      for (int i = 0; i < 6; i++) {
        fake.faults.add(FakeArbiter.Fault.status(503));
        fake.faults.add(FakeArbiter.Fault.status(429, "0"));
        fake.faults.add(FakeArbiter.Fault.of(FakeArbiter.FaultKind.STORE_THEN_RESET));
      }
      AtomicReference<Throwable> failure = new AtomicReference<>();
      AtomicInteger wrongAnswers = new AtomicInteger();
      AtomicInteger thirdSeen = new AtomicInteger();
      AtomicInteger tracked = new AtomicInteger();
      CountDownLatch go = new CountDownLatch(1);
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int thread = t;
        Thread worker = new Thread(() -> {
          try {
            go.await();
            // Track at least EVENTS_PER_THREAD each, and go on until the new config has arrived.
            for (int i = 0; i < EVENTS_PER_THREAD || thirdSeen.get() == 0; i++) {
              if (i >= EVENTS_PER_THREAD) Thread.sleep(5);
              String user = "user-" + ((thread * 7919 + i) % USERS);
              String variant = client.assign(Configs.EXPERIMENT, user);
              long bucket = bucketer.bucketOf(user);
              String before = bucket < 400 ? "control" : bucket < 800 ? "treatment" : null;
              String after = bucket < 400 ? "control" : bucket < 800 ? "treatment" : "third";
              if (!(java.util.Objects.equals(variant, before) || variant.equals(after))) {
                wrongAnswers.incrementAndGet();
              }
              if ("third".equals(variant)) thirdSeen.incrementAndGet();
              Map<String, Object> payload = new HashMap<>();
              payload.put("experiment_id", i % 2 == 0 ? Configs.EXPERIMENT : Configs.EXPERIMENT_ID);
              payload.put("user_id", user);
              payload.put("business_metric", "revenue");
              payload.put("value", i);
              payload.put("metadata", Map.of("key", thread + ":" + i));
              client.track(EventType.BUSINESS_EVENT, payload);
              tracked.incrementAndGet();
              if (i == 100 && thread == 0) fake.setConfig(v2);
            }
          } catch (Throwable e) {
            failure.compareAndSet(null, e);
          }
        });
        threads.add(worker);
        worker.start();
      }
      go.countDown();
      for (Thread t : threads) t.join();
      // The faults sent batches to the offline store; flushing until it is empty replays them.
      Wait.until(() -> {
        client.flush().join();
        ArbiterStats s = client.stats();
        return s.queued() == 0 && s.sent() == fake.events.size() && storeIsEmpty();
      });
      client.close();

      assertEquals(null, failure.get());
      assertEquals(0, wrongAnswers.get());
      assertTrue(thirdSeen.get() > 0, "the new config reached the assigning threads");
      // Nothing lost, nothing doubled: every (thread, i) is stored exactly once.
      Map<String, Integer> perKey = new HashMap<>();
      int businessEvents = 0;
      for (Map<String, Object> e : fake.events.values()) {
        if (!"business_event".equals(e.get("type"))) continue;
        businessEvents++;
        String key = (String) ((Map<?, ?>) e.get("metadata")).get("key");
        perKey.merge(key, 1, Integer::sum);
      }
      assertTrue(tracked.get() >= THREADS * EVENTS_PER_THREAD);
      assertEquals(tracked.get(), businessEvents);
      assertEquals(tracked.get(), perKey.size());
      assertEquals(Collections.singleton(1), new HashSet<>(perKey.values()));
      // Exposures: at most one per user and variant (a newcomer to the third arm gets a second).
      Set<String> exposures = new HashSet<>();
      for (Map<String, Object> e : fake.events.values()) {
        if ("exposure".equals(e.get("type"))) {
          assertTrue(exposures.add(e.get("user_id") + "/" + e.get("variant")), "doubled exposure");
        }
      }
      ArbiterStats stats = client.stats();
      assertEquals(0, stats.dropped(), stats.toString());
      assertEquals(0, stats.queued(), stats.toString());
      assertEquals(fake.events.size(), stats.sent(), stats.toString());
      assertTrue(stats.spilled() > 0, "the faults made the client spill: " + stats);
    }
  }
}
