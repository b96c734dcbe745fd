package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java clients' sources hold the server's rules: no import cycle between packages, no
 * method over 60 lines. Each rule is proved on a planted violation.
 */
class SourceGuardsTest {
  /** The sources of this client and of the integration built on it, each root on its own. */
  private static final List<String> ROOTS =
      List.of("clients/java/src/main/java", "clients/java-langchain4j/src/main/java");

  private static String longBody(String indent) {
    return IntStream.range(0, SourceGuards.MAX_METHOD_LINES)
        .mapToObj(i -> indent + "int a" + i + " = " + i + ";")
        .collect(Collectors.joining("\n"));
  }

  @Test
  void noMethodOfTheJavaClientsIsOver60Lines() {
    List<String> found = new ArrayList<>();
    for (String root : ROOTS) {
      Map<String, String> sources = SourceGuards.read(RepoFiles.root().resolve(root));
      assertTrue(sources.size() > 0, root);
      found.addAll(SourceGuards.longMethods(sources));
    }
    assertEquals(List.of(), found);
  }

  @Test
  void noImportCycleBetweenTheJavaClientsPackages() {
    for (String root : ROOTS) {
      Map<String, String> sources = SourceGuards.read(RepoFiles.root().resolve(root));
      assertEquals(List.of(), SourceGuards.cycles(SourceGuards.packageGraph(sources)), root);
    }
  }

  @Test
  void refusesAPlantedLongMethodConstructorAndLambda() {
    String text = String.join("\n",
        "class A {",
        "  /** Doc lines do not count. */",
        "  @Override",
        "  public String toString() {",
        longBody("    "),
        "    return \"}\";",
        "  }",
        "  A() {",
        longBody("    "),
        "  }",
        "  void shortOne() { if (true) { return; } }",
        "  Runnable r = () -> {",
        longBody("    "),
        "  };",
        "}");
    assertEquals(List.of("A.java:3 (64 lines)", "A.java:67 (62 lines)", "A.java:130 (62 lines)"),
        SourceGuards.longMethodsIn("A.java", text));
  }

  @Test
  void countsNoControlBlockAnonymousClassOrBraceInALiteral() {
    String text = String.join("\n",
        "class A {",
        "  void f() {",
        "    Runnable r = new Runnable() {",
        "      public void run() {}",
        "    };",
        "    char c = '{';",
        "    String s = \"{{{\";",
        "    // {",
        "    /* { */",
        "  }",
        "  void g() {",
        "    if (x) {",
        longBody("      "),
        "    } else if (y) {",
        "    }",
        "  }",
        "}");
    assertEquals(List.of("A.java:11 (65 lines)"), SourceGuards.longMethodsIn("A.java", text));
  }

  @Test
  void refusesAPlantedCycleReadFromDisk(@TempDir Path dir) throws IOException {
    Path a = Files.createDirectories(dir.resolve("dev/arbiter/client/a"));
    Path b = Files.createDirectories(dir.resolve("dev/arbiter/client/b"));
    Files.writeString(a.resolve("A.java"), String.join("\n",
        "package dev.arbiter.client.a;",
        "import dev.arbiter.client.b.B;",
        "public class A { B b; }"));
    Files.writeString(b.resolve("B.java"), String.join("\n",
        "package dev.arbiter.client.b;",
        "// dev.arbiter.client.Arbiter in a comment is no reference",
        "public class B { dev.arbiter.client.a.A a; }"));
    Files.writeString(dir.resolve("dev/arbiter/client/C.java"), String.join("\n",
        "package dev.arbiter.client;",
        "import dev.arbiter.client.a.A;",
        "class C { A a; }"));
    Map<String, String> sources = SourceGuards.read(dir);
    assertEquals(Map.of(
        "dev.arbiter.client", Set.of("dev.arbiter.client.a"),
        "dev.arbiter.client.a", Set.of("dev.arbiter.client.b"),
        "dev.arbiter.client.b", Set.of("dev.arbiter.client.a")),
        SourceGuards.packageGraph(sources));
    assertEquals(
        List.of(List.of("dev.arbiter.client.a", "dev.arbiter.client.b", "dev.arbiter.client.a")),
        SourceGuards.cycles(SourceGuards.packageGraph(sources)));
    Files.writeString(b.resolve("B.java"), "package dev.arbiter.client.b;\npublic class B {}");
    assertEquals(Collections.emptyList(),
        SourceGuards.cycles(SourceGuards.packageGraph(SourceGuards.read(dir))));
  }
}
