package dev.arbiter.client;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** Files of the repository the tests share with the other clients (testdata/, the server). */
final class RepoFiles {
  private RepoFiles() {}

  static Path root() {
    return Path.of(System.getProperty("arbiter.repoRoot", "../..")).toAbsolutePath().normalize();
  }

  static String read(String relative) {
    try {
      return Files.readString(root().resolve(relative), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A JSON document of the repository, read with the client's own reader. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> json(String relative) {
    return (Map<String, Object>) JsonReader.parse(read(relative));
  }
}
