package dev.arbiter.client;

/** Wraps the application's logger so that one that throws cannot reach a caller. */
final class SafeLogger implements ArbiterLogger {
  private final ArbiterLogger inner;

  SafeLogger(ArbiterLogger inner) {
    this.inner = inner;
  }

  @Override
  public void warn(String message) {
    try {
      inner.warn(message);
    } catch (RuntimeException ignored) {
      // A broken logger loses the line, never the caller's request.
    }
  }

  @Override
  public void error(String message) {
    try {
      inner.error(message);
    } catch (RuntimeException ignored) {
      // As above.
    }
  }
}
