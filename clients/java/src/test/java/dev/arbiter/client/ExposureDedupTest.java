package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One exposure per experiment, user, variant and UTC day, through the client, with its clock
 * driven by the test: again on a new day, again for a new variant, and again (at most) after the
 * table reached its capacity.
 */
class ExposureDedupTest {
  /** 2026-11-25T13:00:00Z. */
  private static final long NOON = 1_795_564_800_000L + 13 * 3_600_000L;

  private FakeArbiter fake;
  private final AtomicLong now = new AtomicLong(NOON);
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

  /** The options every client of these tests takes beside its own. */
  Arbiter.Builder options(Arbiter.Builder b) {
    return b;
  }

  private Arbiter ready(Arbiter.Builder b) throws Exception {
    Arbiter c = options(b).apiKey(fake.apiKey).baseUrl(fake.baseUrl()).logger(new MemoryLogger())
        .flushInterval(Duration.ofHours(1)).sendFullBatches(false).clock(now::get).build();
    clients.add(c);
    assertTrue(c.ready().get());
    return c;
  }

  /** Stored exposures as "user/variant/yyyy-mm-dd", one line each. */
  private List<String> exposures(Arbiter c) {
    c.flush().join();
    return fake.events.values().stream().filter(e -> "exposure".equals(e.get("type")))
        .map(e -> e.get("user_id") + "/" + e.get("variant") + "/"
            + ((String) e.get("timestamp")).substring(0, 10))
        .sorted().collect(Collectors.toList());
  }

  /** The enrolled of user-0 … user-(n-1), each assigned three times (name and id alike). */
  private static List<String> assignAll(Arbiter c, int n) {
    List<String> enrolled = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String user = "user-" + i;
      String variant = c.assign(Configs.EXPERIMENT, user);
      c.assign(Configs.EXPERIMENT_ID, user);
      c.getPrompt(Configs.EXPERIMENT, user, "d");
      if (variant != null) enrolled.add(user + "/" + variant);
    }
    return enrolled;
  }

  @Test
  void oneExposurePerUserAndVariantADayAndAgainTheNextDay() throws Exception {
    Arbiter c = ready(Arbiter.builder().pollInterval(Duration.ofHours(1)));
    List<String> enrolled = assignAll(c, 200);
    assertTrue(enrolled.size() > 100, "most users enrolled: " + enrolled.size());
    List<String> expected = enrolled.stream().map(u -> u + "/2026-11-25").sorted()
        .collect(Collectors.toList());
    assertEquals(expected, exposures(c));
    // The last millisecond of the day still finds them.
    now.set(1_795_564_800_000L + 86_400_000L - 1);
    assignAll(c, 200);
    assertEquals(expected, exposures(c));
    // Midnight UTC: each user's first assignment of the new day sends again, once.
    now.set(1_795_564_800_000L + 86_400_000L);
    assignAll(c, 200);
    now.addAndGet(3_600_000L);
    assignAll(c, 200);
    List<String> twoDays = new ArrayList<>(expected);
    enrolled.forEach(u -> twoDays.add(u + "/2026-11-26"));
    twoDays.sort(null);
    assertEquals(twoDays, exposures(c));
    assertEquals(0, c.stats().dropped());
  }

  @Test
  void aChangedVariantSendsAgain() throws Exception {
    Arbiter c = ready(Arbiter.builder().pollInterval(Duration.ofMillis(20)));
    List<String> before = assignAll(c, 100);
    // The arms swap their buckets: every enrolled user gets the other variant.
    fake.setConfig(Configs.doc(2, List.of(Configs.experiment(Configs.EXPERIMENT_ID,
        Configs.EXPERIMENT, "s-8f2a", 1000,
        List.of(Configs.range("treatment", 0, 400), Configs.range("control", 400, 800))))));
    String first = before.get(0);
    String user = first.substring(0, first.indexOf('/'));
    String old = first.substring(first.indexOf('/') + 1);
    Wait.until(() -> !old.equals(c.assign(Configs.EXPERIMENT, user)));
    List<String> after = assignAll(c, 100);
    assertEquals(before.size(), after.size());
    for (int i = 0; i < before.size(); i++) assertNotEquals(before.get(i), after.get(i));
    List<String> both = new ArrayList<>();
    before.forEach(u -> both.add(u + "/2026-11-25"));
    after.forEach(u -> both.add(u + "/2026-11-25"));
    both.sort(null);
    assertEquals(both, exposures(c));
    // Back to the first arms: those fingerprints are still there, so nothing more today.
    fake.setConfig(Configs.doc(3, List.of(Configs.twoArms())));
    Wait.until(() -> old.equals(c.assign(Configs.EXPERIMENT, user)));
    assignAll(c, 100);
    assertEquals(both, exposures(c));
  }

  @Test
  void theCapacityClearsTheTableAndStartsAgain() throws Exception {
    Arbiter c = ready(Arbiter.builder().pollInterval(Duration.ofHours(1)).exposureDedupCapacity(50));
    // Find 51 enrolled users: the first 50 fill the table, the 51st clears it.
    List<String> users = new ArrayList<>();
    for (int i = 0; users.size() < 51; i++) {
      if (c.assign(Configs.EXPERIMENT, "user-" + i) != null) users.add("user-" + i);
    }
    Map<String, Integer> sent = new HashMap<>();
    for (String e : exposures(c)) sent.merge(e.substring(0, e.indexOf('/')), 1, Integer::sum);
    assertEquals(51, sent.size());
    assertTrue(sent.values().stream().allMatch(n -> n == 1));
    // The table now holds the 51st only: 49 of the first are sent once more, then remembered.
    for (int round = 0; round < 3; round++) {
      for (String u : users.subList(0, 49)) c.assign(Configs.EXPERIMENT, u);
    }
    assertEquals(100, exposures(c).size());
  }

  @Test
  void theCapacityIsValidatedLikeTheOtherNumericOptions() throws Exception {
    // Below 1 reads as 1: each new user forgets the previous one.
    Arbiter tiny = ready(Arbiter.builder().pollInterval(Duration.ofHours(1)).exposureDedupCapacity(-3));
    List<String> enrolled = new ArrayList<>();
    for (int i = 0; enrolled.size() < 2; i++) {
      if (tiny.assign(Configs.EXPERIMENT, "user-" + i) != null) enrolled.add("user-" + i);
    }
    tiny.assign(Configs.EXPERIMENT, enrolled.get(1));
    tiny.assign(Configs.EXPERIMENT, enrolled.get(0));
    assertEquals(3, exposures(tiny).size());
    // Above 2^30 reads as 2^30, and the table grows on demand: no gigabytes at build time.
    Arbiter huge = ready(Arbiter.builder().pollInterval(Duration.ofHours(1))
        .exposureDedupCapacity(Integer.MAX_VALUE));
    for (int i = 0; i < 3; i++) huge.assign(Configs.EXPERIMENT, enrolled.get(0));
    assertEquals(4, exposures(huge).size());
  }
}
