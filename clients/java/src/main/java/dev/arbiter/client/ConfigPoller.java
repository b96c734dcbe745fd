package dev.arbiter.client;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Keeps the {@link ConfigStore} fresh: {@code GET /v1/config} with {@code If-None-Match}, so an
 * unchanged config costs a 304 and no parsing. A failed poll leaves the last config serving,
 * with one log line per outage. Runs on the scheduler thread only.
 */
final class ConfigPoller {
  private final Transport transport;
  private final ConfigStore store;
  private final ArbiterLogger logger;
  /**
   * What the last problem logged was, so that an outage gives one line, not one per poll. A
   * failed request counts by its kind alone (its detail changes within one outage: a reset
   * connection, then refused ones); an unusable config by what is wrong with it.
   */
  private String lastProblem;
  /**
   * Told each poll's outcome: {@code changed} (a new config installed), {@code unchanged} or
   * {@code failed} (the API not reached, or a config that cannot be used). What the OpenFeature
   * provider turns into provider events ({@link FlagHooks}).
   */
  final List<Consumer<String>> listeners = new CopyOnWriteArrayList<>();

  ConfigPoller(Transport transport, ConfigStore store, ArbiterLogger logger) {
    this.transport = transport;
    this.store = store;
    this.logger = logger;
  }

  void fetchOnce() {
    String outcome = poll();
    for (Consumer<String> listener : listeners) {
      try {
        listener.accept(outcome);
      } catch (RuntimeException e) {
        logger.warn("config listener failed: " + e);
      }
    }
  }

  private String poll() {
    String etag = store.etag();
    Transport.Result result = transport.request("GET", "/v1/config",
        etag == null ? Map.of() : Map.of("If-None-Match", etag), null);
    switch (result.kind) {
      case NOT_MODIFIED:
        recovered();
        return "unchanged";
      case OK:
        ConfigStore.Outcome outcome = store.replace(result.body, result.etag);
        if (outcome.fatal != null) {
          problem("not used: " + outcome.fatal, "config not used: " + outcome.fatal);
          return "failed";
        }
        if (!outcome.skipped.isEmpty()) {
          logger.warn("config: malformed entries left out: " + String.join(", ", outcome.skipped));
        }
        recovered();
        return "changed";
      default:
        if (store.loaded()) {
          problem("refresh-failed",
              "config refresh failed, serving config version " + store.version() + ": " + result.detail);
        } else {
          problem("not-loaded",
              "config could not be loaded, assign() returns null until it is: " + result.detail);
        }
        return "failed";
    }
  }

  private void problem(String key, String message) {
    if (!key.equals(lastProblem)) logger.warn(message);
    lastProblem = key;
  }

  private void recovered() {
    if (lastProblem != null) logger.warn("config: API reachable again");
    lastProblem = null;
  }
}
