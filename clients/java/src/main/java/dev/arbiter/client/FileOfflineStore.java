package dev.arbiter.client;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Spilled events as newline-delimited JSON, oldest first: the same file format as the
 * TypeScript and Python clients, so any of them can replay what another left. Appends go to
 * the end of the file; removals rewrite it through a temporary file and a rename, so a crash
 * leaves the old file or the new one, never half of one. A line cut short by a crash
 * mid-append is skipped on load. One client per file: the in-memory copy is the truth while
 * the process runs.
 */
final class FileOfflineStore implements OfflineStore {
  private final Path path;
  private final int capacity;
  private List<Map<String, Object>> events;
  /** The file ends in a torn line: the next append must start on a line of its own. */
  private boolean tornTail;
  /** Events removed from memory but still in the file (see {@link #remove}). */
  private int removedSinceRewrite;

  FileOfflineStore(Path path, int capacity) {
    this.path = path;
    this.capacity = capacity;
  }

  @Override
  public synchronized int append(List<Map<String, Object>> batch) throws IOException {
    List<Map<String, Object>> held = load();
    int overflow = Math.max(0, held.size() + batch.size() - capacity);
    // The file is written first: memory never holds an event the file lost.
    if (overflow > 0) {
      List<Map<String, Object>> next = new ArrayList<>(held);
      next.addAll(batch);
      next = new ArrayList<>(next.subList(overflow, next.size()));
      rewrite(next);
      events = next;
      tornTail = false;
    } else if (removedSinceRewrite > 0) {
      // The file still holds removed events: appending would bring them back on the next load.
      held.addAll(batch);
      rewrite(held);
    } else {
      createParent();
      ensureFile();
      String lines = (tornTail ? "\n" : "") + toLines(batch);
      Files.write(path, lines.getBytes(StandardCharsets.UTF_8), StandardOpenOption.APPEND);
      tornTail = false;
      held.addAll(batch);
    }
    return overflow;
  }

  @Override
  public synchronized List<Map<String, Object>> peek(int limit) throws IOException {
    List<Map<String, Object>> held = load();
    return new ArrayList<>(held.subList(0, Math.min(limit, held.size())));
  }

  @Override
  public synchronized void remove(Collection<String> eventIds) throws IOException {
    Set<String> gone = new HashSet<>(eventIds);
    List<Map<String, Object>> held = load();
    List<Map<String, Object>> kept = new ArrayList<>(held.size());
    for (Map<String, Object> e : held) {
      if (!gone.contains(e.get("event_id"))) kept.add(e);
    }
    if (kept.size() == held.size()) return;
    events = kept;
    removedSinceRewrite += held.size() - kept.size();
    // Replay removes a batch at a time; rewriting the whole file for each would make draining
    // a large store quadratic. The file is compacted once a good share of it is gone. A crash
    // before that replays those events again: at least once, and the server keeps one copy of
    // each event_id.
    if (kept.isEmpty() || removedSinceRewrite >= Math.max(COMPACT_AFTER, kept.size())) {
      rewrite(kept);
      tornTail = false;
    }
  }

  private static final int COMPACT_AFTER = 1_000;

  private List<Map<String, Object>> load() throws IOException {
    if (events != null) return events;
    List<Map<String, Object>> loaded = new ArrayList<>();
    String text;
    try {
      text = new String(Files.readAllBytes(path), StandardCharsets.UTF_8);
    } catch (NoSuchFileException none) {
      text = "";
    }
    tornTail = !text.isEmpty() && !text.endsWith("\n");
    for (String line : text.split("\n")) {
      if (line.isEmpty()) continue;
      try {
        Object parsed = JsonReader.parse(line);
        if (parsed instanceof Map && ((Map<?, ?>) parsed).get("event_id") instanceof String) {
          @SuppressWarnings("unchecked")
          Map<String, Object> event = (Map<String, Object>) parsed;
          loaded.add(event);
        }
      } catch (IllegalArgumentException torn) {
        // A line cut short by a crash mid-append: the rest of the file is still good.
      }
    }
    events = loaded;
    return loaded;
  }

  private void rewrite(List<Map<String, Object>> next) throws IOException {
    removedSinceRewrite = 0;
    createParent();
    Path temporary = path.resolveSibling(path.getFileName() + "." + ProcessHandle.current().pid() + ".tmp");
    Files.deleteIfExists(temporary);
    createPrivate(temporary);
    Files.write(temporary, toLines(next).getBytes(StandardCharsets.UTF_8),
        StandardOpenOption.TRUNCATE_EXISTING);
    try {
      Files.move(temporary, path, StandardCopyOption.REPLACE_EXISTING,
          StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException notAtomic) {
      Files.move(temporary, path, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  private void createParent() throws IOException {
    Path parent = path.toAbsolutePath().getParent();
    if (parent != null) Files.createDirectories(parent);
  }

  private void ensureFile() throws IOException {
    if (!Files.exists(path)) createPrivate(path);
  }

  /** Spilled events hold user ids and model text: readable by the owner only, where POSIX allows. */
  private static void createPrivate(Path file) throws IOException {
    try {
      Files.createFile(file, PosixFilePermissions.asFileAttribute(
          PosixFilePermissions.fromString("rw-------")));
    } catch (UnsupportedOperationException notPosix) {
      Files.createFile(file);
    } catch (FileAlreadyExistsException raced) {
      // Another writer made it first; appending to it is what we wanted anyway.
    }
  }

  private static String toLines(List<Map<String, Object>> batch) {
    StringBuilder out = new StringBuilder();
    for (Map<String, Object> e : batch) {
      JsonWriter.write(e, out, 0);
      out.append('\n');
    }
    return out.toString();
  }
}
