package dev.arbiter.client;

/**
 * {@link ExposureDedupTest}'s cases with every exposure check batched, as a table past the L2
 * cache has them: the same exposures on the same days.
 */
class ExposureDedupBatchedTest extends ExposureDedupTest {
  @Override
  Arbiter.Builder options(Arbiter.Builder b) {
    return b.exposureBatchFromSlots(0);
  }
}
