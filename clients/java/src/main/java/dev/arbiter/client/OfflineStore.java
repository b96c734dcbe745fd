package dev.arbiter.client;

import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Where batches go when the API cannot take them, to be replayed later with their original ids
 * and timestamps. Every method may throw; the pipeline turns a failure into a dropped batch and
 * one log line.
 */
interface OfflineStore {
  /** Adds events; past the store's capacity the oldest go. Returns how many went. */
  int append(List<Map<String, Object>> events) throws IOException;

  /** Up to {@code limit} of the oldest events, left in the store. */
  List<Map<String, Object>> peek(int limit) throws IOException;

  /** Removes the events with these ids; unknown ids are ignored. */
  void remove(Collection<String> eventIds) throws IOException;
}
