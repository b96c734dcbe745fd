package dev.arbiter.client;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every shared vector file's test runs: a ready client of the file's config for each test,
 * and every case on each surface, with its attributes as given and prepared.
 */
abstract class VectorFileRunner {
  protected final Map<String, Object> vectors;
  protected ReadyClient ready;
  protected Arbiter client;
  protected VectorCases run;

  VectorFileRunner(Map<String, Object> vectors) {
    this.vectors = vectors;
  }

  @BeforeEach
  void start() throws Exception {
    // A stopped clock: a run crossing UTC midnight between two calls would expose the user again.
    long now = System.currentTimeMillis();
    ready = ReadyClient.start(VectorCases.config(vectors),
        b -> b.pollInterval(Duration.ofHours(1)).clock(() -> now));
    client = ready.client;
    run = new VectorCases(vectors, ready);
  }

  @AfterEach
  void stop() {
    ready.close();
  }

  /** Every case: the variant on each surface, and exactly the exposures it sends, in order. */
  @Test
  void everyCaseAssignsAndSendsItsExposuresInOrder() {
    run.everyCase(false);
  }

  /** The same cases with each user's attributes as a {@link PreparedAttributes}: the same answers. */
  @Test
  void everyCaseAssignsAndSendsItsExposuresInOrderThroughPreparedAttributes() {
    run.everyCase(true);
  }
}
