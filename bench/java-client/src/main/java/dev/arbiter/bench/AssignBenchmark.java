package dev.arbiter.bench;

import com.launchdarkly.sdk.LDContext;
import com.launchdarkly.sdk.server.Components;
import com.launchdarkly.sdk.server.LDClient;
import com.launchdarkly.sdk.server.LDConfig;
import com.launchdarkly.sdk.server.integrations.FileData;
import com.sun.net.httpserver.HttpServer;
import dev.arbiter.client.Arbiter;
import dev.arbiter.client.ArbiterLogger;
import dev.arbiter.client.ArbiterStats;
import dev.arbiter.client.PreparedAttributes;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * One assignment of one of 16,384 distinct users to a two-variant 50/50 experiment, on one
 * thread: Arbiter's {@code assign()} (exposures on, as by default: after the first round each
 * user's exposure is already sent) against LaunchDarkly's Java server SDK evaluating an equivalent
 * flag ({@code stringVariation}: two variations, a 50/50 percentage rollout, the same salt), one
 * {@code LDContext} per user built beforehand, so that neither side parses attributes in the
 * measured call. LaunchDarkly reads its flag from a classpath file with events off: no network.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(1)
public class AssignBenchmark {
  /**
   * Distinct users, a power of two. The scale curve: {@code ./run.sh -p
   * users=16384,65536,262144,1048576} (1x, 4x, 16x, 64x; see {@code scale.sh}).
   */
  @Param({"16384"})
  int users = 16_384;
  static final String CONFIG = "{\"config_version\":1,\"bucketing_version\":\"1\",\"experiments\":[{"
      + "\"id\":\"0b6f1c9e-7c1a-4d3e-9a43-0c1a2b3c4d5e\",\"name\":\"checkout-prompt\",\"version\":1,"
      + "\"salt\":\"s-8f2a\",\"bucket_count\":10000,\"ranges\":[{\"variant\":\"control\",\"start\":0,\"end\":5000},"
      + "{\"variant\":\"concise\",\"start\":5000,\"end\":10000}],\"variants\":[{\"key\":\"control\"},{\"key\":\"concise\"}]},"
      // The same experiment behind a five-clause targeting condition (goal: at least 0.5x the untargeted call).
      + "{\"id\":\"7d1c2b3a-0000-4000-8000-000000000005\",\"name\":\"checkout-prompt-targeted\",\"version\":1,"
      + "\"salt\":\"s-8f2a\",\"bucket_count\":10000,\"ranges\":[{\"variant\":\"control\",\"start\":0,\"end\":5000},"
      + "{\"variant\":\"concise\",\"start\":5000,\"end\":10000}],\"variants\":[{\"key\":\"control\"},{\"key\":\"concise\"}],"
      + "\"targeting\":{\"plan\":{\"$in\":[\"pro\",\"team\"]},\"locale\":{\"$regexi\":\"^en\"},"
      + "\"app.version\":{\"$vgte\":\"2.4.0\"},\"country\":{\"$nin\":[\"CU\",\"IR\"]},\"age\":{\"$gte\":18}}}]}";

  private String[] userIds;
  /** User i's attributes: nine in ten match all five clauses, so most calls reach the bucket. */
  private Map<String, Object>[] attributes;
  /**
   * User i's attributes as a {@link PreparedAttributes}, built in the set-up as a request-scoped
   * context is built once per request (LaunchDarkly's contexts above are too).
   */
  private PreparedAttributes[] prepared;
  /** User i's five condition fields, read beforehand (the TargetingProbe's fourth side). */
  private Object[][] resolved;
  private int next;
  private HttpServer server;
  private Arbiter arbiter;
  private Arbiter arbiterWithoutExposures;
  /** The defaults (exposures and targeting tallies on), for the targeted experiment. */
  private Arbiter arbiterTargeted;
  private LDClient launchDarkly;
  private LDContext[] contexts;

  /** Users assigned between two flushes in the first round: well under the queue's 10,000. */
  static final int WARM_UP_CHUNK = 5_000;

  /** Only what the benchmark about to run needs: at a million users the rest costs minutes. */
  @Setup(Level.Trial)
  public void setUp(BenchmarkParams params) throws Exception {
    String name = params.getBenchmark();
    setUp(name.substring(name.lastIndexOf('.') + 1));
  }

  /** {@code benchmark} names the one to prepare for, or is "all". */
  public void setUp(String benchmark) throws Exception {
    boolean all = benchmark.equals("all");
    if (Integer.bitCount(users) != 1) throw new IllegalArgumentException("users must be a power of two");
    userIds = new String[users];
    for (int i = 0; i < users; i++) userIds[i] = "user-" + i;
    boolean targetedExposed = all || benchmark.equals("arbiterAssignTargetedWithExposures");
    if (all || targetedExposed || benchmark.startsWith("arbiterAssignTargeted")) {
      attributes = attributesOf(users);
      prepared = new PreparedAttributes[users];
      for (int i = 0; i < users; i++) prepared[i] = PreparedAttributes.of(attributes[i]);
    }
    // The config comes from a loopback server speaking GET /v1/config; events are acknowledged.
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    server.createContext("/", ex -> {
      ex.getRequestBody().readAllBytes();
      boolean config = ex.getRequestURI().getPath().equals("/v1/config");
      byte[] body = (config ? CONFIG : "{\"accepted\":0,\"config_version\":1}")
          .getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("Content-Type", "application/json");
      ex.getResponseHeaders().set("ETag", "\"1\"");
      ex.sendResponseHeaders(config ? 200 : 202, body.length);
      ex.getResponseBody().write(body);
      ex.close();
    });
    server.start();
    arbiterWithoutExposures = client(false);
    // Both sides must answer, with both variants in about equal shares: a benchmark of a call
    // that does nothing (or always falls back) measures nothing.
    checkSplit("Arbiter", users, i -> arbiterWithoutExposures.assign("checkout-prompt", userIds[i]));
    if (all || benchmark.equals("arbiterAssign")) {
      arbiter = client(true);
      exposeEveryone(arbiter, userIds);
    }
    if (targetedExposed) {
      arbiterTargeted = client(true);
      checkTargetedExposed();
    }
    if (!all && !benchmark.equals("launchDarklyVariation")) return;
    launchDarkly = new LDClient("sdk-bench-offline", new LDConfig.Builder()
        .dataSource(FileData.dataSource().classpathResources("launchdarkly-flags.json"))
        .events(Components.noEvents())
        .diagnosticOptOut(true)
        .logging(Components.noLogging())
        .build());
    if (!launchDarkly.isInitialized()) throw new IllegalStateException("LaunchDarkly flags not loaded");
    contexts = new LDContext[users];
    for (int i = 0; i < users; i++) contexts[i] = LDContext.create(userIds[i]);
    checkSplit("LaunchDarkly", users, i -> launchDarkly.stringVariation("checkout-prompt", contexts[i], "fallback"));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object>[] attributesOf(int users) {
    Map<String, Object>[] out = new Map[users];
    String[] countries = {"US", "DE", "FR", "JP"};
    for (int i = 0; i < users; i++) {
      out[i] = Map.of(
          "plan", i % 10 == 0 ? "free" : i % 2 == 1 ? "pro" : "team",
          "locale", i % 3 != 0 ? "en-US" : "EN-gb",
          "app", Map.of("version", "2." + (4 + i % 7) + "." + (i % 13)),
          "country", countries[i % 4],
          "age", (long) (18 + i % 50));
    }
    return out;
  }

  private static void checkSplit(String side, int users, IntFunction<String> assignment) {
    int control = 0;
    for (int i = 0; i < users; i++) {
      String variant = assignment.apply(i);
      if ("control".equals(variant)) control++;
      else if (!"concise".equals(variant)) throw new IllegalStateException(side + " answered " + variant);
    }
    if (control < users * 0.45 || control > users * 0.55) {
      throw new IllegalStateException(side + " put " + control + " of " + users + " users in control");
    }
  }

  private Arbiter client(boolean exposures) throws Exception {
    Arbiter client = Arbiter.builder().apiKey("svc_pk_bench")
        .baseUrl("http://127.0.0.1:" + server.getAddress().getPort())
        .trackExposures(exposures)
        // The largest batch the API takes: a million first exposures in fewer requests.
        .batchSize(1_000)
        .logger(new ArbiterLogger() {
          @Override
          public void warn(String message) {}

          @Override
          public void error(String message) {}
        })
        .build();
    if (!client.ready().get()) throw new IllegalStateException("config not loaded");
    return client;
  }

  /**
   * The first round: every user's exposure, delivered as a real app's traffic would be (a flush
   * every {@link #WARM_UP_CHUNK} users, so the queue never fills), then a second round that must
   * send nothing. Prints what the client sent and dropped and what the exposure table added to
   * the heap (live bytes after a full GC) and to the process's RSS; throws unless every
   * exposure was sent once and none dropped.
   */
  static void exposeEveryone(Arbiter client, String[] userIds) {
    long heapBefore = liveHeap();
    long rssBefore = rssKb();
    for (int i = 0; i < userIds.length; i++) {
      client.assign("checkout-prompt", userIds[i]);
      if ((i + 1) % WARM_UP_CHUNK == 0) client.flush().join();
    }
    client.flush().join();
    ArbiterStats first = client.stats();
    for (String user : userIds) client.assign("checkout-prompt", user);
    client.flush().join();
    ArbiterStats second = client.stats();
    long heapAfter = liveHeap();
    long rssAfter = rssKb();
    System.out.printf("exposures at %,d users: sent %,d, dropped %d; second round sent %,d more; "
        + "live heap +%.1f MiB (%.1f bytes a user), RSS +%.1f MiB%n", userIds.length,
        first.sent(), first.dropped(), second.sent() - first.sent(),
        (heapAfter - heapBefore) / 1048576.0, (heapAfter - heapBefore) / (double) userIds.length,
        (rssAfter - rssBefore) / 1024.0);
    if (first.dropped() != 0 || second.dropped() != 0 || first.sent() != userIds.length
        || second.sent() != first.sent()) {
      throw new IllegalStateException("exposures lost or re-sent: " + first + " then " + second);
    }
  }

  /**
   * The targeted experiment's first round with exposures on, a flush every
   * {@link #WARM_UP_CHUNK} users; throws unless a second round sends nothing more, so that the
   * measured calls are the steady state (exposure and tally already in the table).
   */
  private void checkTargetedExposed() {
    for (int i = 0; i < users; i++) {
      arbiterTargeted.assign("checkout-prompt-targeted", userIds[i], attributes[i]);
      if ((i + 1) % WARM_UP_CHUNK == 0) arbiterTargeted.flush().join();
    }
    arbiterTargeted.flush().join();
    long sent = arbiterTargeted.stats().sent();
    for (int i = 0; i < users; i++) {
      arbiterTargeted.assign("checkout-prompt-targeted", userIds[i], attributes[i]);
    }
    arbiterTargeted.flush().join();
    if (sent == 0 || arbiterTargeted.stats().sent() != sent) {
      throw new IllegalStateException("targeted exposures: " + sent + " then "
          + arbiterTargeted.stats());
    }
  }

  /** Bytes of live objects on the heap, after a full collection. */
  static long liveHeap() {
    for (int i = 0; i < 2; i++) System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  /** The process's resident set in KiB (Linux), or 0. */
  static long rssKb() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    } catch (Exception e) {
      // Not Linux: no RSS figure.
    }
    return 0;
  }

  /** Events the exposure client has sent so far (its exposures: it tracks nothing else). */
  long exposuresSent() {
    arbiter.flush().join();
    return arbiter.stats().sent();
  }

  /** {@link #arbiterAssign} for a user id the probe made: its own order of users. */
  String arbiterAssignFresh(String user) {
    return arbiter.assign("checkout-prompt", user);
  }

  /** {@link #arbiterAssignWithoutExposures} for a user id the probe made. */
  String arbiterAssignFreshWithoutExposures(String user) {
    return arbiterWithoutExposures.assign("checkout-prompt", user);
  }

  /** The index of the user the next call assigns. */
  int nextUser() {
    return next;
  }

  String userAt(int i) {
    return userIds[i];
  }

  long exposuresDropped() {
    return arbiter.stats().dropped();
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    if (launchDarkly != null) launchDarkly.close();
    if (arbiter != null) arbiter.close();
    if (arbiterTargeted != null) arbiterTargeted.close();
    arbiterWithoutExposures.close();
    server.stop(0);
  }

  @Benchmark
  public String arbiterAssign() {
    int i = next;
    next = (i + 1) & (users - 1);
    return arbiter.assign("checkout-prompt", userIds[i]);
  }

  /** The bucketing alone: what exposure tracking adds is the difference to arbiterAssign. */
  @Benchmark
  public String arbiterAssignWithoutExposures() {
    int i = next;
    next = (i + 1) & (users - 1);
    return arbiterWithoutExposures.assign("checkout-prompt", userIds[i]);
  }

  /** assign() behind the five-clause targeting condition, each user with its attributes. */
  @Benchmark
  public String arbiterAssignTargeted() {
    int i = next;
    next = (i + 1) & (users - 1);
    return arbiterWithoutExposures.assign("checkout-prompt-targeted", userIds[i], attributes[i]);
  }

  /**
   * {@link #arbiterAssignTargeted} with each user's attributes prepared beforehand: the
   * condition reads the fields its prepared value resolved (once, on its first call).
   */
  @Benchmark
  public String arbiterAssignTargetedPrepared() {
    int i = next;
    next = (i + 1) & (users - 1);
    return arbiterWithoutExposures.assign("checkout-prompt-targeted", userIds[i], prepared[i]);
  }

  /**
   * {@link #arbiterAssignTargetedPrepared} with the prepared value built in the call: the copy
   * and the resolution of every field on each call, what preparing costs when it is not reused.
   */
  @Benchmark
  public String arbiterAssignTargetedPreparedPerCall() {
    int i = next;
    next = (i + 1) & (users - 1);
    return arbiterWithoutExposures.assign("checkout-prompt-targeted", userIds[i],
        PreparedAttributes.of(attributes[i]));
  }

  /** The same with the defaults: exposures and targeting tallies on, every user already seen. */
  @Benchmark
  public String arbiterAssignTargetedWithExposures() {
    int i = next;
    next = (i + 1) & (users - 1);
    return arbiterTargeted.assign("checkout-prompt-targeted", userIds[i], attributes[i]);
  }

  /**
   * {@link #arbiterAssignTargeted} with the condition written out by hand ({@link
   * HandWrittenCondition}) in front of the untargeted experiment: not a benchmark of the client,
   * the floor its evaluator is measured against ({@link TargetingProbe}).
   */
  public String handWrittenTargetedAssign() {
    int i = next;
    next = (i + 1) & (users - 1);
    if (!HandWrittenCondition.matches(attributes[i])) return null;
    return arbiterWithoutExposures.assign("checkout-prompt", userIds[i]);
  }

  /**
   * {@link #handWrittenTargetedAssign} over each user's fields read beforehand ({@link
   * HandWrittenCondition#resolve}), as LaunchDarkly's contexts are built beforehand: the floor
   * of an API that resolves a request's attributes once, not a benchmark of the client.
   */
  public String handWrittenResolvedAssign() {
    int i = next;
    next = (i + 1) & (users - 1);
    if (!HandWrittenCondition.matchesResolved(resolved[i])) return null;
    return arbiterWithoutExposures.assign("checkout-prompt", userIds[i]);
  }

  /**
   * Throws unless both hand-written conditions, and the client given each user's
   * {@link PreparedAttributes}, answer as the client given the map for every user; builds the
   * resolved fields {@link #handWrittenResolvedAssign} reads.
   */
  void checkHandWrittenCondition() {
    resolved = new Object[users][];
    for (int i = 0; i < users; i++) {
      resolved[i] = HandWrittenCondition.resolve(attributes[i]);
      if (HandWrittenCondition.matchesResolved(resolved[i]) != HandWrittenCondition.matches(attributes[i])) {
        throw new IllegalStateException("the resolved condition differs for " + attributes[i]);
      }
      String client = arbiterWithoutExposures.assign("checkout-prompt-targeted", userIds[i],
          attributes[i]);
      if ((client != null) != HandWrittenCondition.matches(attributes[i])) {
        throw new IllegalStateException("the hand-written condition differs for " + attributes[i]);
      }
      String viaPrepared = arbiterWithoutExposures.assign("checkout-prompt-targeted", userIds[i],
          prepared[i]);
      if (!java.util.Objects.equals(client, viaPrepared)) {
        throw new IllegalStateException("PreparedAttributes answered " + viaPrepared + ", the map "
            + client + ", for " + attributes[i]);
      }
    }
  }

  @Benchmark
  public String launchDarklyVariation() {
    int i = next;
    next = (i + 1) & (users - 1);
    return launchDarkly.stringVariation("checkout-prompt", contexts[i], "fallback");
  }
}
