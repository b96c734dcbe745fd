package dev.arbiter.client;

/**
 * Where the client's warnings go. The default writes to {@link System.Logger} named
 * {@code dev.arbiter.client} (java.util.logging unless the application routes it elsewhere).
 * A logger that throws is ignored: logging is never the reason a caller sees an exception.
 */
public interface ArbiterLogger {
  void warn(String message);

  void error(String message);

  /** The default: {@link System#getLogger} named {@code dev.arbiter.client}. */
  static ArbiterLogger system() {
    System.Logger logger = System.getLogger("dev.arbiter.client");
    return new ArbiterLogger() {
      @Override
      public void warn(String message) {
        logger.log(System.Logger.Level.WARNING, "[arbiter] " + message);
      }

      @Override
      public void error(String message) {
        logger.log(System.Logger.Level.ERROR, "[arbiter] " + message);
      }
    };
  }
}
