package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code arbiter.evaluate} end to end: the real server (datasets and offline runs) and a local
 * OpenAI-compatible provider that the task calls through {@code interceptModelCall}.
 */
class EvaluateRealServerTest {
  private static final String NAME = "java-evaluate";
  private static final String DATASET = "java-evaluate-questions";
  private static final Map<String, String> PROMPTS =
      Map.of("control", "Answer briefly.", "concise", "Answer in one word.");
  private static final String FAILURE = "task failed on purpose";
  private static RealServer server;
  private static FakeOpenAi provider;
  private static String experimentId;
  private static String datasetId;
  private static String publishable;
  private static String secret;

  @BeforeAll
  static void start() throws Exception {
    server = RealServer.start();
    provider = new FakeOpenAi();
    Map<String, Object> config = new LinkedHashMap<>();
    config.put("name", NAME);
    config.put("salt", "java-evaluate-salt");
    config.put("bucket_count", 10_000L);
    config.put("allocation", List.of(Map.of("variant", "control", "weight", 50L),
        Map.of("variant", "concise", "weight", 50L)));
    config.put("variants", List.of(
        Map.of("key", "control", "prompt", PROMPTS.get("control"),
            "variables", Map.of("temperature", 0.7, "tone", "plain")),
        Map.of("key", "concise", "prompt", PROMPTS.get("concise"),
            "variables", Map.of("temperature", 0.2))));
    config.put("metrics", List.of());
    experimentId = (String) ((Map<?, ?>) server.session("POST", "/v1/experiments", config)).get("id");
    datasetId = (String) ((Map<?, ?>) server.session("POST", "/v1/datasets",
        Map.of("name", DATASET))).get("id");
    List<Map<String, Object>> items = new ArrayList<>();
    items.add(item("q1", "What is 2+2?", FakeOpenAi.answerTo("What is 2+2?"),
        Map.of("temperature", 0.0)));
    items.add(item("q2", "Capital of France?", "Paris", null));
    items.add(item("q3", Map.of("question", "nested"), null, null));
    items.add(item("q4", "boom", null, null));
    items.add(item("q5", "please fail", null, null));
    Map<?, ?> upload = (Map<?, ?>) server.session("POST", "/v1/datasets/" + datasetId + "/items",
        Map.of("items", items));
    assertEquals(5L, upload.get("items"), String.valueOf(upload));
    publishable = (String) ((Map<?, ?>) server.session("POST", "/v1/keys",
        Map.of("scope", "publishable"))).get("key");
    secret = (String) ((Map<?, ?>) server.session("POST", "/v1/keys",
        Map.of("scope", "secret"))).get("key");
  }

  @AfterAll
  static void stop() throws Exception {
    if (provider != null) provider.close();
    if (server != null) server.close();
  }

  private static Map<String, Object> item(String id, Object input, Object expected,
      Map<String, Object> variables) {
    Map<String, Object> item = new LinkedHashMap<>();
    item.put("id", id);
    item.put("input", input);
    if (expected != null) item.put("expected_output", expected);
    if (variables != null) item.put("variables", variables);
    return item;
  }

  private static Arbiter client(String key, MemoryLogger logger) {
    return Arbiter.builder().apiKey(key).baseUrl(server.baseUrl).logger(logger)
        .retryBaseDelay(java.time.Duration.ofMillis(10)).build();
  }

  private static String text(Object input) {
    return input instanceof String ? (String) input : JsonWriter.write(input);
  }

  /**
   * The application's task: one chat call through the client for the variant's prompt, the
   * item's input as the user message. "boom" throws; the provider's refusal of "please fail"
   * is caught and answered with a fallback.
   */
  private static Evaluation.Task task(Arbiter client, Map<String, AtomicInteger> runs,
      Map<String, String> forced) {
    return in -> {
      String triple = in.item().get("id") + "/" + in.variant() + "/" + in.repeat();
      runs.computeIfAbsent(triple, k -> new AtomicInteger()).incrementAndGet();
      String input = text(in.input());
      if (input.equals("boom")) throw new IllegalStateException(FAILURE);
      try {
        Map<String, Object> answer = client.interceptModelCall(NAME, variant -> {
          forced.put(triple, String.valueOf(variant));
          return provider.chat(in.prompt(), input);
        });
        return FakeOpenAi.text(answer);
      } catch (IllegalStateException refused) {
        return "fallback";
      }
    };
  }

  private static long eventsUsed() throws Exception {
    Map<?, ?> usage = (Map<?, ?>) server.session("GET", "/v1/usage", null);
    return (Long) ((Map<?, ?>) usage.get("events")).get("used");
  }

  private static List<?> runs() throws Exception {
    return (List<?>) server.session("GET", "/v1/experiments/" + experimentId + "/offline-runs", null);
  }

  /** The run's items view, every page, by item id. */
  private static Map<String, Map<?, ?>> itemsView(String runId) throws Exception {
    Map<String, Map<?, ?>> out = new TreeMap<>();
    Map<?, ?> page = (Map<?, ?>) server.session("GET",
        "/v1/offline-runs/" + runId + "/items?sort=item&limit=500", null);
    for (Object item : (List<?>) page.get("data")) out.put((String) ((Map<?, ?>) item).get("id"), (Map<?, ?>) item);
    assertEquals(false, page.get("has_more"));
    return out;
  }

  private static Map<?, ?> result(Map<String, Map<?, ?>> view, String item, String variant,
      int repeat) {
    for (Object r : (List<?>) ((Map<?, ?>) view.get(item).get("variants")).get(variant)) {
      if (((Long) ((Map<?, ?>) r).get("repeat")) == repeat) return (Map<?, ?>) r;
    }
    throw new AssertionError("no result for " + item + "/" + variant + "/" + repeat);
  }

  @Test
  void runsEveryVariantThroughTheWrappedProviderAndAttachesWhatItMeasured() throws Exception {
    MemoryLogger logger = new MemoryLogger();
    Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    Map<String, String> forced = new ConcurrentHashMap<>();
    Map<String, Map<String, Object>> variables = new ConcurrentHashMap<>();
    List<Evaluation.Progress> progress = new ArrayList<>();
    long usedBefore = eventsUsed();
    int requestsBefore = provider.requests.size();
    OfflineRun run;
    try (Arbiter client = client(secret, logger)) {
      Evaluation.Task chat = task(client, runs, forced);
      run = client.evaluate(Evaluation.builder()
          .experiment(NAME)
          .dataset(DATASET)
          .task(in -> {
            variables.put(in.item().get("id") + "/" + in.variant(), in.variables());
            return chat.run(in);
          })
          .scorers(Scorer.exactMatch("exact"),
              Scorer.custom("answer_length", s -> ((String) s.output()).length()),
              Scorer.custom("broken", s -> {
                throw new IllegalStateException("scorer bug");
              }))
          .repeats(2)
          .concurrency(3)
          .note("java end to end")
          .onProgress(progress::add)
          .build());
      client.flush().get();
      // The model calls were measured for the results, not sent as exposures or model_calls.
      assertEquals(0, client.stats().sent(), client.stats().toString());
      assertEquals(0, client.stats().queued(), client.stats().toString());
    }
    assertEquals(usedBefore, eventsUsed());

    assertEquals("complete", run.status(), String.valueOf(run.toMap()));
    assertEquals(List.of("control", "concise"), run.variants());
    assertEquals(20, run.expectedResults());
    assertEquals(20, run.receivedResults());
    assertEquals(4L, run.coverage().get("failed_results"));
    assertEquals(0L, run.coverage().get("missing_results"));
    assertTrue(run.comparisons().containsKey("exact::concise"), run.comparisons().keySet().toString());
    assertTrue(run.comparisons().containsKey("latency_ms::concise"));
    assertTrue(run.comparisons().containsKey("total_tokens::concise"));

    // Each triple ran once, the repeats included, with the evaluated variant forced.
    Map<String, Integer> counts = new TreeMap<>();
    runs.forEach((k, v) -> counts.put(k, v.get()));
    assertEquals(20, counts.size(), counts.toString());
    assertTrue(counts.values().stream().allMatch(n -> n == 1), counts.toString());
    forced.forEach((triple, variant) -> assertTrue(triple.contains("/" + variant + "/"), triple));
    assertEquals(16, forced.size());

    // Each variant's prompt reached the provider, once per item and repeat.
    Map<String, Integer> sent = new TreeMap<>();
    for (Map<String, Object> body : provider.requests.subList(requestsBefore, provider.requests.size())) {
      List<?> messages = (List<?>) body.get("messages");
      sent.merge(((Map<?, ?>) messages.get(0)).get("content") + " | "
          + ((Map<?, ?>) messages.get(1)).get("content"), 1, Integer::sum);
    }
    Map<String, Integer> expectedSent = new TreeMap<>();
    for (String prompt : PROMPTS.values()) {
      for (String input : List.of("What is 2+2?", "Capital of France?", "{\"question\":\"nested\"}",
          "please fail")) {
        expectedSent.put(prompt + " | " + input, 2);
      }
    }
    assertEquals(expectedSent, sent);

    // The variant's variables, with the item's merged over them.
    assertEquals(Map.of("temperature", 0L, "tone", "plain"), variables.get("q1/control"));
    assertEquals(Map.of("temperature", 0L), variables.get("q1/concise"));
    assertEquals(Map.of("temperature", 0.2), variables.get("q2/concise"));

    Map<String, Map<?, ?>> view = itemsView(run.id());
    for (String variant : PROMPTS.keySet()) {
      for (int repeat = 0; repeat < 2; repeat++) {
        Map<?, ?> q1 = result(view, "q1", variant, repeat);
        assertEquals(FakeOpenAi.answerTo("What is 2+2?"), q1.get("output"));
        assertNull(q1.get("error"));
        assertEquals(FakeOpenAi.inputTokens(PROMPTS.get(variant), "What is 2+2?"), q1.get("input_tokens"));
        assertEquals(FakeOpenAi.outputTokens("What is 2+2?"), q1.get("output_tokens"));
        assertEquals(FakeOpenAi.MODEL, q1.get("model"));
        assertTrue(((Number) q1.get("latency_ms")).doubleValue() >= FakeOpenAi.DELAY_MS, q1.toString());
        Map<?, ?> scores = (Map<?, ?>) q1.get("scores");
        assertEquals(1.0, ((Number) scores.get("exact")).doubleValue());
        assertEquals((double) FakeOpenAi.answerTo("What is 2+2?").length(),
            ((Number) scores.get("answer_length")).doubleValue());
        assertTrue(!scores.containsKey("broken"), scores.toString());

        Map<?, ?> boom = result(view, "q4", variant, repeat);
        assertEquals(FAILURE, boom.get("error"));
        assertNull(boom.get("output"));
        assertNull(boom.get("input_tokens"));
        assertNull(boom.get("model"));
        assertNotNull(boom.get("latency_ms"), "the task's own time when it made no call");
        assertTrue(!((Map<?, ?>) boom.get("scores")).containsKey("answer_length"));

        // A failed call the task caught: the result stands, with the call's latency only.
        Map<?, ?> caught = result(view, "q5", variant, repeat);
        assertEquals("fallback", caught.get("output"));
        assertNull(caught.get("error"));
        assertNull(caught.get("input_tokens"));
        assertNull(caught.get("model"));
        assertTrue(((Number) caught.get("latency_ms")).doubleValue() >= FakeOpenAi.DELAY_MS);
      }
    }

    // Progress after each result, in order, to the total.
    assertEquals(20, progress.size());
    for (int i = 0; i < 20; i++) {
      assertEquals(i + 1, progress.get(i).done());
      assertEquals(20, progress.get(i).total());
    }
    assertEquals(List.of(), logger.lines);
  }

  @Test
  void anInterruptedRunIsResumedWithoutRunningAnythingTwice() throws Exception {
    MemoryLogger logger = new MemoryLogger();
    Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    Map<String, String> forced = new ConcurrentHashMap<>();
    int runsBefore = runs().size();
    try (Arbiter client = client(secret, logger)) {
      Evaluation.Task chat = task(client, runs, forced);
      AtomicReference<Thread> caller = new AtomicReference<>();
      AtomicInteger started = new AtomicInteger();
      AtomicReference<Throwable> thrown = new AtomicReference<>();
      AtomicReference<Boolean> stillInterrupted = new AtomicReference<>();
      // The third task to start interrupts the thread that called evaluate.
      Evaluation first = Evaluation.builder().experiment(experimentId).dataset(datasetId)
          .task(in -> {
            if (started.incrementAndGet() == 3) caller.get().interrupt();
            return chat.run(in);
          })
          .concurrency(2).build();
      Thread t = new Thread(() -> {
        try {
          client.evaluate(first);
        } catch (Throwable e) {
          thrown.set(e);
          stillInterrupted.set(Thread.currentThread().isInterrupted());
        }
      });
      caller.set(t);
      t.start();
      t.join();
      assertTrue(thrown.get() instanceof ArbiterException, String.valueOf(thrown.get()));
      assertTrue(thrown.get().getMessage().contains("interrupted"), thrown.get().getMessage());
      assertEquals(true, stillInterrupted.get(), "the interrupt is kept for the caller");

      List<?> after = runs();
      assertEquals(runsBefore + 1, after.size());
      Map<?, ?> interrupted = (Map<?, ?>) after.get(0);
      String runId = (String) interrupted.get("id");
      assertTrue(thrown.get().getMessage().contains(runId), thrown.get().getMessage());
      assertEquals("running", interrupted.get("status"));
      // Every task started before the interrupt finished and its result is stored.
      int ranFirst = runs.size();
      assertTrue(ranFirst >= 3 && ranFirst < 10, runs.toString());
      assertEquals((long) ranFirst, interrupted.get("received_results"));

      OfflineRun resumed = client.evaluate(Evaluation.builder().runId(runId)
          .task(chat).concurrency(2).build());
      assertEquals("complete", resumed.status());
      assertEquals(10, resumed.receivedResults());
      assertEquals(0L, resumed.coverage().get("missing_results"));
      Map<String, Integer> counts = new TreeMap<>();
      runs.forEach((k, v) -> counts.put(k, v.get()));
      assertEquals(10, counts.size(), counts.toString());
      assertTrue(counts.values().stream().allMatch(n -> n == 1), counts.toString());

      // A run past `running` is returned as it is; no task runs.
      OfflineRun again = client.evaluate(Evaluation.builder().runId(runId).task(chat).build());
      assertEquals("complete", again.status());
      assertEquals(resumed.toMap().get("completed_at"), again.toMap().get("completed_at"));
      assertEquals(10, runs.size());
      assertEquals(10, runs.values().stream().mapToInt(AtomicInteger::get).sum());
    }
    assertEquals(List.of(), logger.lines);
  }

  @Test
  void resultUploadsAreRetriedAndTheResentRowsAreNoError() throws Exception {
    MemoryLogger logger = new MemoryLogger();
    try (LossyProxy proxy = new LossyProxy(server.baseUrl)) {
      proxy.lossy = path -> path.endsWith("/results");
      proxy.acksToLose.set(2);
      Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
      try (Arbiter client = Arbiter.builder().apiKey(secret).baseUrl(proxy.baseUrl())
          .logger(logger).retryBaseDelay(java.time.Duration.ofMillis(10)).build()) {
        OfflineRun run = client.evaluate(Evaluation.builder().experiment(NAME).dataset(DATASET)
            .task(task(client, runs, new ConcurrentHashMap<>())).build());
        assertEquals("complete", run.status());
        assertEquals(10, run.receivedResults());
      }
      // The one batch was stored at the first attempt; the third got its answer.
      assertEquals(2, proxy.acksLost.get());
      assertEquals(10, runs.size());
    }
    assertEquals(List.of(), logger.lines);
  }

  @Test
  void aRunWhoseExperimentChangedSinceCannotBeResumed() throws Exception {
    Map<String, Object> config = new LinkedHashMap<>();
    config.put("name", "java-evaluate-changed");
    config.put("salt", "java-evaluate-changed-salt");
    config.put("bucket_count", 10_000L);
    config.put("allocation", List.of(Map.of("variant", "control", "weight", 50L),
        Map.of("variant", "treatment", "weight", 50L)));
    config.put("variants", List.of(Map.of("key", "control", "prompt", "old control"),
        Map.of("key", "treatment", "prompt", "old treatment")));
    config.put("metrics", List.of());
    String id = (String) ((Map<?, ?>) server.session("POST", "/v1/experiments", config)).get("id");
    String runId = (String) ((Map<?, ?>) server.session("POST",
        "/v1/experiments/" + id + "/offline-runs", Map.of("dataset_id", datasetId))).get("id");
    server.session("PUT", "/v1/experiments/" + id, Map.of("variants", List.of(
        Map.of("key", "control", "prompt", "new control"),
        Map.of("key", "treatment", "prompt", "new treatment"))));
    AtomicInteger tasks = new AtomicInteger();
    try (Arbiter client = client(secret, new MemoryLogger())) {
      ArbiterException e = assertThrows(ArbiterException.class, () -> client.evaluate(
          Evaluation.builder().runId(runId).task(in -> tasks.incrementAndGet()).build()));
      assertTrue(e.getMessage().contains("pinned version 1"), e.getMessage());
      assertTrue(e.getMessage().contains("serves version 2"), e.getMessage());
    }
    assertEquals(0, tasks.get());
  }

  @Test
  void aPublishableKeyIsRefusedBeforeAnyRequest() throws Exception {
    int runsBefore = runs().size();
    AtomicInteger tasks = new AtomicInteger();
    try (Arbiter client = client(publishable, new MemoryLogger())) {
      ArbiterException e = assertThrows(ArbiterException.class, () -> client.evaluate(
          Evaluation.builder().experiment(NAME).dataset(DATASET)
              .task(in -> tasks.incrementAndGet()).build()));
      assertTrue(e.getMessage().contains("secret key"), e.getMessage());
    }
    assertEquals(0, tasks.get());
    assertEquals(runsBefore, runs().size());
  }

  @Test
  void aRefusedRequestThrowsWithTheProblemsDetail() throws Exception {
    try (Arbiter client = client(secret, new MemoryLogger())) {
      ArbiterException e = assertThrows(ArbiterException.class, () -> client.evaluate(
          Evaluation.builder().experiment(NAME).dataset("no-such-dataset")
              .task(in -> "x").build()));
      assertTrue(e.getMessage().contains("HTTP 404"), e.getMessage());
      assertTrue(e.getMessage().contains("no-such-dataset"), e.getMessage());
    }
  }

  @Test
  void theBuilderNeedsATaskAndWhatToRun() {
    assertThrows(IllegalStateException.class,
        () -> Evaluation.builder().experiment(NAME).dataset(DATASET).build());
    assertThrows(IllegalStateException.class,
        () -> Evaluation.builder().experiment(NAME).task(in -> "x").build());
    Evaluation resume = Evaluation.builder().runId("r").task(in -> "x").concurrency(0).build();
    assertEquals(1, resume.concurrency);
    assertEquals(ArbiterDefaults.EVALUATION_CONCURRENCY,
        Evaluation.builder().runId("r").task(in -> "x").build().concurrency);
  }
}
