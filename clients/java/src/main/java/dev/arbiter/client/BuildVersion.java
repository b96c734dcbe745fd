package dev.arbiter.client;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * The client's version as the build wrote it: Maven filters {@code arbiter-client.properties}
 * with the pom's version, so the string sent in {@code User-Agent} cannot drift from the
 * artifact's. A repackaged jar that lost the file falls back to its manifest.
 */
final class BuildVersion {
  static final String RESOURCE = "arbiter-client.properties";
  private static final String UNKNOWN = "unknown";

  private BuildVersion() {}

  static String read() {
    String version = fromResource();
    if (version == null) version = Arbiter.class.getPackage().getImplementationVersion();
    return version == null || version.isEmpty() ? UNKNOWN : version;
  }

  private static String fromResource() {
    try (InputStream in = BuildVersion.class.getResourceAsStream(RESOURCE)) {
      if (in == null) return null;
      Properties properties = new Properties();
      properties.load(in);
      String version = properties.getProperty("version");
      // An unfiltered copy (an IDE build that skipped Maven) still holds the placeholder.
      return version == null || version.startsWith("${") ? null : version.trim();
    } catch (IOException e) {
      return null;
    }
  }
}
