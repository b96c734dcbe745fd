package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPathFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

/** Arbiter.VERSION comes from the build, so it is the pom's version, not a second copy. */
class VersionTest {
  private static String pomVersion() throws Exception {
    File pom = RepoFiles.root().resolve("clients/java/pom.xml").toFile();
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setNamespaceAware(false);
    Document doc = factory.newDocumentBuilder().parse(pom);
    return XPathFactory.newInstance().newXPath().evaluate("/project/version", doc).trim();
  }

  @Test
  void versionIsThePomVersion() throws Exception {
    String pom = pomVersion();
    assertTrue(pom.matches("\\d+\\.\\d+\\.\\d+.*"), "pom version " + pom);
    assertEquals(pom, Arbiter.VERSION);
  }

  @Test
  void everyRequestNamesTheVersion() throws Exception {
    try (FakeArbiter fake = new FakeArbiter(Configs.doc(1, List.of(Configs.twoArms())));
        Arbiter client = Arbiter.builder().apiKey(fake.apiKey).baseUrl(fake.baseUrl())
            .logger(new MemoryLogger()).build()) {
      assertTrue(client.ready().get());
      assertEquals("arbiter-java/" + pomVersion(), fake.userAgent);
    }
  }
}
