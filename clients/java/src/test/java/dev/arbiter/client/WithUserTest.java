package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code withUser} scopes: the user of {@code interceptModelCall(experiment, call)} is the
 * innermost scope's on the calling thread, restored when a scope ends however it ends, and never
 * seen by another thread. Each call returns a result naming its model ("call-N"), so that each
 * stored model_call can be matched with the call that made it.
 */
class WithUserTest {
  private FakeArbiter fake;
  private MemoryLogger logger;
  private Arbiter client;

  @BeforeEach
  void start() throws Exception {
    fake = new FakeArbiter(Configs.doc(1, List.of(Configs.twoArms())));
    logger = new MemoryLogger();
    client = Arbiter.builder().apiKey(fake.apiKey).baseUrl(fake.baseUrl()).logger(logger)
        .trackExposures(false).pollInterval(Duration.ofHours(1)).flushInterval(Duration.ofHours(1))
        .sendFullBatches(false).build();
    assertTrue(client.ready().get());
  }

  @AfterEach
  void stop() {
    client.close();
    fake.close();
  }

  /** A model call whose result names it ("model"). */
  private void modelCall(String name) {
    client.interceptModelCall(Configs.EXPERIMENT, variant -> Map.of("model", name));
  }

  /** The user each recorded model call belongs to, by the call's name. */
  private Map<String, String> usersByCall() {
    client.flush().join();
    return fake.events.values().stream().filter(e -> "model_call".equals(e.get("type")))
        .collect(Collectors.toMap(e -> (String) e.get("model"), e -> (String) e.get("user_id")));
  }

  private List<String> enrolled(int count) {
    List<String> users = new ArrayList<>();
    for (int i = 0; users.size() < count; i++) {
      if (client.assign(Configs.EXPERIMENT, "user-" + i) != null) users.add("user-" + i);
    }
    return users;
  }

  @Test
  void theInnermostScopeNamesTheUserAndTheOuterOneComesBack() {
    List<String> users = enrolled(2);
    String a = users.get(0);
    String b = users.get(1);
    String answer = client.withUser(a, () -> {
      modelCall("call-1");
      client.withUser(b, () -> modelCall("call-2"));
      modelCall("call-3");
      return "done";
    });
    assertEquals("done", answer);
    modelCall("call-4");
    assertEquals(Map.of("call-1", a, "call-2", b, "call-3", a), usersByCall());
    assertEquals(1, logger.count("model call outside withUser(), not recorded"));
  }

  @Test
  void theVariantPassedIsTheScopeUsersAndNullOutsideAnyScope() {
    String a = enrolled(1).get(0);
    String variant = client.assign(Configs.EXPERIMENT, a);
    String[] seen = new String[2];
    client.withUser(a, () -> client.interceptModelCall(Configs.EXPERIMENT, v -> seen[0] = v));
    seen[1] = "unset";
    client.interceptModelCall(Configs.EXPERIMENT, v -> seen[1] = v);
    assertEquals(variant, seen[0]);
    assertNull(seen[1]);
  }

  @Test
  void aScopeThatThrowsRestoresTheOuterUserAndRethrowsUnchanged() throws Exception {
    List<String> users = enrolled(2);
    String a = users.get(0);
    String b = users.get(1);
    IOException boom = new IOException("disk gone");
    client.withUser(a, () -> {
      // A checked exception passes through withUser with its own type.
      IOException thrown = assertThrows(IOException.class, () -> client.withUser(b, () -> {
        modelCall("call-1");
        throw boom;
      }));
      assertSame(boom, thrown);
      modelCall("call-2");
    });
    IllegalStateException unchecked = new IllegalStateException("bug");
    assertSame(unchecked, assertThrows(IllegalStateException.class,
        () -> client.withUser(a, () -> {
          throw unchecked;
        })));
    modelCall("call-3");
    assertEquals(Map.of("call-1", b, "call-2", a), usersByCall());
  }

  @Test
  void concurrentThreadsEachRecordTheirOwnUser() throws Exception {
    int threads = 16;
    List<String> users = enrolled(threads);
    // Every thread enters its scope, then all wait for each other before and between their
    // calls, so the scopes overlap in time.
    CyclicBarrier together = new CyclicBarrier(threads);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int n = t;
        done.add(pool.submit(() -> client.withUser(users.get(n), () -> {
          together.await();
          modelCall("call-" + n + "-a");
          together.await();
          modelCall("call-" + n + "-b");
          return null;
        })));
      }
      for (Future<?> f : done) f.get();
    } finally {
      pool.shutdown();
    }
    Map<String, String> byCall = usersByCall();
    assertEquals(2 * threads, byCall.size());
    for (int t = 0; t < threads; t++) {
      assertEquals(users.get(t), byCall.get("call-" + t + "-a"));
      assertEquals(users.get(t), byCall.get("call-" + t + "-b"));
    }
  }

  @Test
  void theUserDoesNotFollowWorkIntoAnotherThread() throws Exception {
    String a = enrolled(1).get(0);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      client.withUser(a, () -> {
        modelCall("call-1");
        pool.submit(() -> modelCall("call-2")).get();
        return null;
      });
    } finally {
      pool.shutdown();
    }
    assertEquals(Map.of("call-1", a), usersByCall());
  }

  @Test
  void aNullUserIsAScopeWithoutAUser() {
    String a = enrolled(1).get(0);
    client.withUser(a, () -> client.withUser(null, () -> modelCall("call-1")));
    assertEquals(Map.of(), usersByCall());
  }
}
