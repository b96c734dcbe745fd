package dev.arbiter.client;

/**
 * Thrown by {@link Arbiter.Builder#build()} when the client cannot be made (no API key, a
 * malformed base URL), and by {@link Arbiter#evaluate(Evaluation)}, an explicit call that
 * fails loudly. {@code assign}, {@code track} and the rest never throw.
 */
public final class ArbiterException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ArbiterException(String message) {
    super(message);
  }
}
