package dev.arbiter.client;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Keeps every line the client logs, so that tests can count them. */
final class MemoryLogger implements ArbiterLogger {
  final List<String> lines = Collections.synchronizedList(new ArrayList<>());

  @Override
  public void warn(String message) {
    lines.add("warn: " + message);
  }

  @Override
  public void error(String message) {
    lines.add("error: " + message);
  }

  long count(String fragment) {
    synchronized (lines) {
      return lines.stream().filter(l -> l.contains(fragment)).count();
    }
  }

  String all() {
    synchronized (lines) {
      return String.join("\n", lines);
    }
  }
}
