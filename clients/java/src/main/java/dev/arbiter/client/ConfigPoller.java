package dev.arbiter.client;

import java.util.Map;

/**
 * Keeps the {@link ConfigStore} fresh: {@code GET /v1/config} with {@code If-None-Match}, so an
 * unchanged config costs a 304 and no parsing. A failed poll leaves the last config serving,
 * with one log line per outage. Runs on the scheduler thread only.
 */
final class ConfigPoller {
  private final Transport transport;
  private final ConfigStore store;
  private final ArbiterLogger logger;
  /** Last problem logged, so that an outage gives one line, not one per poll. */
  private String lastProblem;

  ConfigPoller(Transport transport, ConfigStore store, ArbiterLogger logger) {
    this.transport = transport;
    this.store = store;
    this.logger = logger;
  }

  void fetchOnce() {
    String etag = store.etag();
    Transport.Result result = transport.request("GET", "/v1/config",
        etag == null ? Map.of() : Map.of("If-None-Match", etag), null);
    switch (result.kind) {
      case NOT_MODIFIED:
        recovered();
        return;
      case OK:
        ConfigStore.Outcome outcome = store.replace(result.body, result.etag);
        if (outcome.fatal != null) {
          problem("config not used: " + outcome.fatal);
          return;
        }
        if (!outcome.skipped.isEmpty()) {
          logger.warn("config: malformed experiments left out: " + String.join(", ", outcome.skipped));
        }
        recovered();
        return;
      default:
        problem(store.loaded()
            ? "config refresh failed, serving config version " + store.version() + ": " + result.detail
            : "config could not be loaded, assign() returns null until it is: " + result.detail);
    }
  }

  private void problem(String message) {
    if (!message.equals(lastProblem)) logger.warn(message);
    lastProblem = message;
  }

  private void recovered() {
    if (lastProblem != null) logger.warn("config: API reachable again");
    lastProblem = null;
  }
}
