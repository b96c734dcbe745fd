package dev.arbiter.client;

import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * What the OpenFeature provider ({@code dev.arbiter:arbiter-openfeature}) reads of a client
 * beyond {@link Arbiter#assign}: an experiment's id, state and variables, the config version,
 * and each poll's outcome. Not a stable API: the provider is released with the client at its
 * version.
 */
public final class FlagHooks {
  private final Arbiter client;

  private FlagHooks(Arbiter client) {
    this.client = client;
  }

  /** The hooks of {@code client}. */
  public static FlagHooks of(Arbiter client) {
    return new FlagHooks(Objects.requireNonNull(client, "client"));
  }

  /** Whether a config has been loaded. */
  public boolean loaded() {
    return client.store.loaded();
  }

  /** The loaded config's version, or -1 before the first load. */
  public long version() {
    return client.store.version();
  }

  /** The experiment of a name or id, or null when the config has none (archived ones included). */
  public Experiment experiment(String key) {
    CompiledExperiment entry = key == null ? null : client.store.lookup(key);
    return entry == null ? null : new Experiment(entry);
  }

  /**
   * Calls {@code listener} with each poll's outcome ({@code changed}, {@code unchanged},
   * {@code failed}) on the client's background thread; the returned Runnable stops it.
   */
  public Runnable onPoll(Consumer<String> listener) {
    client.poller.listeners.add(listener);
    return () -> client.poller.listeners.remove(listener);
  }

  /** Logs {@code message} through the client's logger the first time {@code key} is seen. */
  public void warnOnce(String key, String message) {
    client.warnOnce(key, message);
  }

  /** An experiment as the config has it. */
  public static final class Experiment {
    private final CompiledExperiment entry;

    private Experiment(CompiledExperiment entry) {
      this.entry = entry;
    }

    public String id() {
      return entry.id;
    }

    public String name() {
      return entry.name;
    }

    /** {@code running}, {@code draft} or {@code stopped}. */
    public String status() {
      return entry.status.name().toLowerCase(java.util.Locale.ROOT);
    }

    /** The variables of {@code variant} (read-only); empty for an unknown variant or none. */
    public Map<String, Object> variables(String variant) {
      CompiledExperiment.Variant v = entry.variants.get(variant);
      return v == null || v.variables == null ? Map.of() : v.variables;
    }
  }
}
