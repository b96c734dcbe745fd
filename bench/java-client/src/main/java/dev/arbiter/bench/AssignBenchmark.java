package dev.arbiter.bench;

import com.sun.net.httpserver.HttpServer;
import dev.arbiter.client.Arbiter;
import dev.arbiter.client.ArbiterLogger;
import growthbook.sdk.java.GrowthBook;
import growthbook.sdk.java.model.Experiment;
import growthbook.sdk.java.model.GBContext;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * One assignment of one of 16,384 distinct users to a two-variant 50/50 experiment, on one
 * thread: Arbiter's {@code assign()} (exposures on, as by default: after the first round each
 * user's exposure is already sent) against the GrowthBook Java SDK's {@code run(experiment)} on
 * an equivalent experiment, one GrowthBook instance per user built beforehand, so that neither
 * side parses attributes in the measured call.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(1)
public class AssignBenchmark {
  static final int USERS = 16_384;
  static final String CONFIG = "{\"config_version\":1,\"bucketing_version\":\"1\",\"experiments\":[{"
      + "\"id\":\"0b6f1c9e-7c1a-4d3e-9a43-0c1a2b3c4d5e\",\"name\":\"checkout-prompt\",\"version\":1,"
      + "\"salt\":\"s-8f2a\",\"bucket_count\":10000,\"ranges\":[{\"variant\":\"control\",\"start\":0,\"end\":5000},"
      + "{\"variant\":\"concise\",\"start\":5000,\"end\":10000}],\"variants\":[{\"key\":\"control\"},{\"key\":\"concise\"}]}]}";

  private String[] users;
  private int next;
  private HttpServer server;
  private Arbiter arbiter;
  private Arbiter arbiterWithoutExposures;
  private GrowthBook[] growthbooks;
  private Experiment<String> experiment;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    users = new String[USERS];
    for (int i = 0; i < USERS; i++) users[i] = "user-" + i;
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
    arbiter = client(true);
    arbiterWithoutExposures = client(false);

    ArrayList<String> variations = new ArrayList<>(List.of("control", "concise"));
    ArrayList<Float> weights = new ArrayList<>(List.of(0.5f, 0.5f));
    experiment = Experiment.<String>builder().key("checkout-prompt").variations(variations)
        .weights(weights).coverage(1.0f).build();
    growthbooks = new GrowthBook[USERS];
    for (int i = 0; i < USERS; i++) {
      growthbooks[i] = new GrowthBook(GBContext.builder()
          .attributesJson("{\"id\":\"" + users[i] + "\"}")
          .featuresJson("{}")
          .trackingCallback(null)
          .build());
    }
    // Both sides must answer: a benchmark of a call that does nothing measures nothing.
    if (arbiter.assign("checkout-prompt", users[0]) == null
        || growthbooks[0].run(experiment).getValue() == null) {
      throw new IllegalStateException("an assignment came back empty");
    }
  }

  private Arbiter client(boolean exposures) throws Exception {
    Arbiter client = Arbiter.builder().apiKey("svc_pk_bench")
        .baseUrl("http://127.0.0.1:" + server.getAddress().getPort())
        .trackExposures(exposures)
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

  @TearDown(Level.Trial)
  public void tearDown() {
    arbiter.close();
    arbiterWithoutExposures.close();
    server.stop(0);
  }

  @Benchmark
  public String arbiterAssign() {
    int i = next;
    next = (i + 1) & (USERS - 1);
    return arbiter.assign("checkout-prompt", users[i]);
  }

  /** The bucketing alone: what exposure tracking adds is the difference to arbiterAssign. */
  @Benchmark
  public String arbiterAssignWithoutExposures() {
    int i = next;
    next = (i + 1) & (USERS - 1);
    return arbiterWithoutExposures.assign("checkout-prompt", users[i]);
  }

  @Benchmark
  public String growthbookRun() {
    int i = next;
    next = (i + 1) & (USERS - 1);
    return growthbooks[i].run(experiment).getValue();
  }
}
