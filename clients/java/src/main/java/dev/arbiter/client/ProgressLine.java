package dev.arbiter.client;

import java.io.PrintStream;

/**
 * The progress line {@code evaluate} redraws on a terminal:
 * {@code evaluate checkout-prompt: 37/120 (31%), ETA 12s}. Nothing is printed when
 * {@code out} is null (stderr is not a terminal).
 */
final class ProgressLine {
  private final PrintStream out;
  private final String experiment;
  private final long startedNanos = System.nanoTime();
  private int lastLength;

  ProgressLine(PrintStream out, String experiment) {
    this.out = out;
    this.experiment = experiment;
  }

  /** The terminal's stderr, or null when there is no console to draw on. */
  static PrintStream terminalStderr() {
    return System.console() != null ? System.err : null;
  }

  static String text(String experiment, long done, long total, long elapsedMs) {
    long percent = total == 0 ? 100 : done * 100 / total;
    String eta = done == 0 ? "?" : Math.round(elapsedMs / 1000.0 * (total - done) / done) + "s";
    return "evaluate " + experiment + ": " + done + "/" + total + " (" + percent + "%), ETA " + eta;
  }

  synchronized void update(long done, long total) {
    if (out == null) return;
    String line = text(experiment, done, total, (System.nanoTime() - startedNanos) / 1_000_000);
    // Spaces over what a longer earlier line left.
    String pad = " ".repeat(Math.max(0, lastLength - line.length()));
    out.print("\r" + line + pad);
    out.flush();
    lastLength = line.length();
  }

  synchronized void finish() {
    if (out == null || lastLength == 0) return;
    out.println();
    out.flush();
  }
}
