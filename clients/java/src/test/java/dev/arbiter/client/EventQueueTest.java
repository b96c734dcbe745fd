package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The bounded event queue: arrival order, and a full queue drops exposures first (an arriving
 * model call or business event takes the oldest exposure's place; an arriving exposure is
 * dropped), alone, under many threads, and through the client.
 */
class EventQueueTest {
  private static Map<String, Object> event(String type, String id) {
    Map<String, Object> e = new HashMap<>();
    e.put("type", type);
    e.put("id", id);
    return e;
  }

  private static Map<String, Object> exposure(String id) {
    return event("exposure", id);
  }

  private static List<String> ids(List<Map<String, Object>> events) {
    return events.stream().map(e -> (String) e.get("id")).collect(Collectors.toList());
  }

  private static EventQueue.Outcome offer(EventQueue q, Map<String, Object> e) {
    return q.offer(e, "exposure".equals(e.get("type")));
  }

  @Test
  void deliversInArrivalOrderAcrossTypes() {
    EventQueue q = new EventQueue(10);
    offer(q, exposure("e1"));
    offer(q, event("model_call", "m1"));
    offer(q, exposure("e2"));
    offer(q, event("business_event", "b1"));
    offer(q, exposure("e3"));
    assertEquals(5, q.size());
    assertEquals(List.of("e1", "m1", "e2"), ids(q.take(3)));
    assertEquals(List.of("b1", "e3"), ids(q.take(10)));
    assertEquals(0, q.size());
    assertEquals(List.of(), q.take(5));
  }

  @Test
  void aModelCallArrivingAtAQueueFullOfExposuresIsKeptAndAnExposureIsDropped() {
    EventQueue q = new EventQueue(3);
    for (String id : List.of("e1", "e2", "e3")) assertEquals(EventQueue.Outcome.QUEUED, offer(q, exposure(id)));
    assertEquals(EventQueue.Outcome.DROPPED, offer(q, exposure("e4")));
    assertEquals(EventQueue.Outcome.QUEUED_OVER_EXPOSURE, offer(q, event("model_call", "m1")));
    assertEquals(EventQueue.Outcome.QUEUED_OVER_EXPOSURE, offer(q, event("business_event", "b1")));
    assertEquals(3, q.size());
    assertEquals(3, q.dropped(), "e4 arriving, e1 and e2 given up");
    assertEquals(List.of("e3", "m1", "b1"), ids(q.take(10)));
  }

  @Test
  void theOldestExposureGoesEvenBehindOtherEvents() {
    EventQueue q = new EventQueue(4);
    offer(q, event("model_call", "m1"));
    offer(q, exposure("e1"));
    offer(q, event("model_call", "m2"));
    offer(q, exposure("e2"));
    assertEquals(EventQueue.Outcome.QUEUED_OVER_EXPOSURE, offer(q, event("model_call", "m3")));
    assertEquals(List.of("m1", "m2", "e2", "m3"), ids(q.take(10)));
  }

  @Test
  void onlyAQueueFullOfOtherEventsDropsAModelCall() {
    EventQueue q = new EventQueue(2);
    offer(q, event("model_call", "m1"));
    offer(q, event("business_event", "b1"));
    assertEquals(EventQueue.Outcome.DROPPED, offer(q, event("model_call", "m2")));
    assertEquals(EventQueue.Outcome.DROPPED, offer(q, exposure("e1")));
    assertEquals(2, q.dropped());
    assertEquals(List.of("m1", "b1"), ids(q.take(10)));
  }

  /**
   * Eight threads offer exposures and model calls into a small queue while another takes from
   * it: no model call is ever dropped (there are never more of them than the capacity), every
   * offered event is taken, left or counted as dropped, and each thread's events come out in the
   * order it offered them.
   */
  @Test
  void theRuleHoldsUnderManyThreads() throws Exception {
    int capacity = 500;
    int producers = 8;
    int perProducer = 20_000;
    EventQueue q = new EventQueue(capacity);
    List<Map<String, Object>> taken = Collections.synchronizedList(new ArrayList<>());
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicBoolean producing = new AtomicBoolean(true);
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    for (int p = 0; p < producers; p++) {
      int producer = p;
      threads.add(new Thread(() -> {
        try {
          go.await();
          for (int i = 0; i < perProducer; i++) {
            // One event in 400 is a model call: 400 in all, fewer than the capacity.
            boolean modelCall = i % 400 == 0;
            Map<String, Object> e = event(modelCall ? "model_call" : "exposure", producer + ":" + i);
            if (offer(q, e) == EventQueue.Outcome.DROPPED && modelCall) {
              throw new AssertionError("model call dropped: " + e.get("id"));
            }
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }));
    }
    Thread taker = new Thread(() -> {
      while (producing.get()) {
        taken.addAll(q.take(37));
        Thread.yield();
      }
    });
    threads.forEach(Thread::start);
    taker.start();
    go.countDown();
    for (Thread t : threads) t.join();
    producing.set(false);
    taker.join();
    assertEquals(null, failure.get());
    List<Map<String, Object>> all = new ArrayList<>(taken);
    all.addAll(q.take(Integer.MAX_VALUE));
    assertEquals((long) producers * perProducer, all.size() + q.dropped());
    long modelCalls = all.stream().filter(e -> "model_call".equals(e.get("type"))).count();
    assertEquals(producers * perProducer / 400, modelCalls);
    int[] last = new int[producers];
    java.util.Arrays.fill(last, -1);
    for (Map<String, Object> e : all) {
      String[] parts = ((String) e.get("id")).split(":");
      int p = Integer.parseInt(parts[0]);
      int i = Integer.parseInt(parts[1]);
      assertTrue(i > last[p], "thread " + p + "'s order");
      last[p] = i;
    }
    assertTrue(q.dropped() > 0, "the queue was full at times: " + q.dropped());
  }

  /** Through the client: a queue filled by assign's exposures still takes the business events. */
  @Test
  void theClientKeepsBusinessEventsAndModelCallsOverExposures() throws Exception {
    try (FakeArbiter fake = new FakeArbiter(Configs.doc(1, List.of(Configs.twoArms())))) {
      MemoryLogger logger = new MemoryLogger();
      try (Arbiter c = Arbiter.builder().apiKey(fake.apiKey).baseUrl(fake.baseUrl()).logger(logger)
          .pollInterval(Duration.ofHours(1)).flushInterval(Duration.ofHours(1)).sendFullBatches(false)
          .queueCapacity(20).build()) {
        assertTrue(c.ready().get());
        List<String> enrolled = new ArrayList<>();
        for (int i = 0; enrolled.size() < 30; i++) {
          if (c.assign(Configs.EXPERIMENT, "user-" + i) != null) enrolled.add("user-" + i);
        }
        assertEquals(20, c.stats().queued());
        assertEquals(10, c.stats().dropped());
        for (int i = 0; i < 4; i++) c.trackBusinessEvent(Configs.EXPERIMENT, "buyer-" + i, "revenue", i);
        // A model call records its exposure (dropped: the queue is full), then the call itself.
        c.interceptModelCall(Configs.EXPERIMENT, enrolled.get(0), variant -> "answer");
        assertEquals(20, c.stats().queued());
        assertEquals(10 + 4 + 2, c.stats().dropped());
        assertEquals(1, logger.count("queue full"));
        c.flush().join();
        Map<String, List<String>> byType = new HashMap<>();
        fake.events.values().forEach(e -> byType.computeIfAbsent((String) e.get("type"),
            k -> new ArrayList<>()).add((String) e.get("user_id")));
        assertEquals(4, byType.get("business_event").size());
        assertEquals(List.of(enrolled.get(0)), byType.get("model_call"));
        // The five oldest exposures made room: those of the 6th to the 20th enrolled are left.
        List<String> exposed = new ArrayList<>(byType.get("exposure"));
        Collections.sort(exposed);
        List<String> expected = new ArrayList<>(enrolled.subList(5, 20));
        Collections.sort(expected);
        assertEquals(expected, exposed);
      }
    }
  }
}
