package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The config's lifecycle fields: an entry without {@code status} runs, a draft gives null and
 * sends nothing, a stopped entry serves its variant whatever the bucket and sends nothing of its
 * own, and an entry whose state cannot be served is left out.
 */
class LifecycleConfigTest {
  private static Map<String, Object> entry(String name, String status, String served) {
    Map<String, Object> e = new LinkedHashMap<>(Configs.experiment("id-" + name, name,
        "salt-" + name, 1000,
        // Every bucket is treatment's: a stop that serves control serves it to all the same.
        List.of(Configs.range("control", 0, 0), Configs.range("treatment", 0, 1000))));
    if (status != null) e.put("status", status);
    if (served != null) e.put("served_variant", served);
    return e;
  }

  @Test
  void eachStateServesWhatItShouldAndSendsNothingOfItsOwnOnceNotRunning() throws Exception {
    List<Map<String, Object>> experiments = List.of(entry("runs", null, null),
        entry("drafted", "draft", null), entry("shipped", "stopped", "control"),
        entry("paused", "paused", null), entry("archived", "archived", null),
        entry("no-served", "stopped", null), entry("served-unknown", "stopped", "verbose"));
    MemoryLogger logger = new MemoryLogger();
    try (ReadyClient ready = ReadyClient.start(Configs.doc(1, experiments),
        b -> b.pollInterval(Duration.ofHours(1)).logger(logger))) {
      Arbiter client = ready.client;
      List<String> wrong = new ArrayList<>();
      for (int i = 0; i < 1_000; i++) {
        String user = "user-" + i;
        if (!"treatment".equals(client.assign("runs", user))) wrong.add("runs " + user);
        if (client.assign("drafted", user) != null) wrong.add("drafted " + user);
        if (!"control".equals(client.assign("shipped", user))) wrong.add("shipped " + user);
        for (String gone : List.of("paused", "archived", "no-served", "served-unknown")) {
          if (client.assign(gone, user) != null) wrong.add(gone + " " + user);
        }
      }
      assertEquals(List.of(), wrong);
      assertEquals(new PromptResult("control", "prompt of control", false),
          client.getPrompt("shipped", "user-1", "DEFAULT"));
      assertEquals(Map.of("temperature", 0.7), client.getVariables("shipped", "user-1", Map.of()));
      assertEquals(new PromptResult(null, "DEFAULT", true),
          client.getPrompt("drafted", "user-1", "DEFAULT"));
      List<String> given = new ArrayList<>();
      client.interceptModelCall("shipped", "user-1", v -> given.add(v));
      client.interceptModelCall("drafted", "user-1", v -> given.add(v));
      assertEquals(java.util.Arrays.asList("control", null), given);
      client.flush().join();
      // Only the running experiment's exposures went out: one per user.
      Map<Object, Integer> sent = new LinkedHashMap<>();
      ready.fake.events.values().forEach(e -> sent.merge(e.get("experiment_id"), 1, Integer::sum));
      assertEquals(Map.of("id-runs", 1_000), sent);
      assertEquals(1, logger.count("paused, archived, no-served, served-unknown"), logger.all());
    }
  }

  /** Whether a request followed a 200 among the config requests from {@code from} on. */
  private static boolean polledAfterA200(List<String[]> requests, int from) {
    synchronized (requests) {
      for (int i = from; i < requests.size() - 1; i++) {
        if ("200".equals(requests.get(i)[1])) return true;
      }
      return false;
    }
  }

  @Test
  void aStopReachesTheClientWithTheNextConfig() throws Exception {
    try (ReadyClient ready = ReadyClient.start(Configs.doc(1, List.of(entry("exp", null, null))),
        b -> b.pollInterval(Duration.ofMillis(50)))) {
      assertEquals("treatment", ready.client.assign("exp", "user-1"));
      ready.fake.setConfig(Configs.doc(2, List.of(entry("exp", "stopped", "control"))));
      int before = ready.fake.configRequests.size();
      // The new document served (200), then one poll more: the one before it was installed.
      Wait.until(() -> polledAfterA200(ready.fake.configRequests, before));
      List<String> wrong = new ArrayList<>();
      for (int i = 0; i < 1_000; i++) {
        if (!"control".equals(ready.client.assign("exp", "user-" + i))) wrong.add("user-" + i);
      }
      assertEquals(List.of(), wrong);
      ready.client.flush().join();
      // user-1's exposure while it ran; none since the stop.
      assertEquals(1, ready.fake.events.size());
    }
  }
}
