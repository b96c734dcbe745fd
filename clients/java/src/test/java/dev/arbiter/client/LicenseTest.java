package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The jar carries the repository's Apache-2.0 text as META-INF/LICENSE. Read through a class
 * loader that sees only the client's own build output (the folder the jar is made from), so a
 * dependency's licence on the test class path cannot stand in for it.
 */
class LicenseTest {
  @Test
  void theBuildOutputCarriesTheRepositoryLicence() throws Exception {
    URL output = Arbiter.class.getProtectionDomain().getCodeSource().getLocation();
    try (URLClassLoader own = new URLClassLoader(new URL[] {output}, null)) {
      URL licence = own.getResource("META-INF/LICENSE");
      assertNotNull(licence, "META-INF/LICENSE in " + output);
      try (InputStream in = licence.openStream()) {
        String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(RepoFiles.read("LICENSE"), text);
      }
    }
  }
}
