package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * A {@link FakeArbiter} serving a config and a client of it that has loaded it, closed together:
 * the set-up of the tests that run vectors and prepared values through a live client. Nothing
 * flushes on a timer (a test flushes when it counts what was sent); {@code options} sets the
 * rest, the poll interval included.
 */
final class ReadyClient implements AutoCloseable {
  final FakeArbiter fake;
  final Arbiter client;

  private ReadyClient(FakeArbiter fake, Arbiter client) {
    this.fake = fake;
    this.client = client;
  }

  static ReadyClient start(Map<String, Object> config, UnaryOperator<Arbiter.Builder> options)
      throws Exception {
    FakeArbiter fake = new FakeArbiter(config);
    Arbiter client = options.apply(Arbiter.builder().apiKey(fake.apiKey).baseUrl(fake.baseUrl())
        .logger(new MemoryLogger()).flushInterval(Duration.ofHours(1))).build();
    ReadyClient ready = new ReadyClient(fake, client);
    try {
      assertTrue(client.ready().get(30, TimeUnit.SECONDS), "the config loads");
    } catch (Exception | AssertionError e) {
      ready.close();
      throw e;
    }
    return ready;
  }

  @Override
  public void close() {
    client.close();
    fake.close();
  }
}
