package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * docs/quickstart.md's Java block, a whole program ({@code Quickstart.java}), compiles as printed
 * against this library with the build's own flags ({@code -Xlint:all -Werror}): a renamed method
 * or a deprecated call in the page fails here. (apps/server/test/quickstart.test.ts also runs it,
 * on the packed jar, against a server.)
 */
class QuickstartSnippetTest {
  private static final Pattern JAVA_BLOCK = Pattern.compile("(?ms)^```java\\n(.*?)^```$");

  static String compile(String source, Path out) throws Exception {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    assertNotNull(javac, "tests run on a JDK");
    String classes = Path.of(Arbiter.class.getProtectionDomain().getCodeSource().getLocation()
        .toURI()).toString();
    JavaFileObject file = new SimpleJavaFileObject(URI.create("string:///Quickstart.java"),
        JavaFileObject.Kind.SOURCE) {
      @Override
      public CharSequence getCharContent(boolean ignoreEncodingErrors) {
        return source;
      }
    };
    StringWriter diagnostics = new StringWriter();
    boolean ok = javac.getTask(diagnostics, null, null, List.of("--release", "11",
        "-Xlint:all", "-Werror", "-classpath", classes, "-d", out.toString()), null,
        List.of(file)).call();
    return ok ? "" : diagnostics.toString();
  }

  @Test
  void theQuickstartsJavaBlockCompilesWithoutWarnings() throws Exception {
    Matcher m = JAVA_BLOCK.matcher(RepoFiles.read("docs/quickstart.md"));
    List<String> blocks = new ArrayList<>();
    while (m.find()) blocks.add(m.group(1));
    assertEquals(1, blocks.size(), "one Java block in the quickstart");
    Path out = Files.createTempDirectory("arbiter-quickstart-");
    assertEquals("", compile(blocks.get(0), out));
    assertTrue(Files.exists(out.resolve("Quickstart.class")));
  }

  /** The check itself: a call of a deprecated form is refused, as -Werror refuses it in the build. */
  @Test
  void aDeprecatedCallInTheBlockWouldFailIt() throws Exception {
    String stale = "import dev.arbiter.client.Arbiter;\n"
        + "public class Quickstart {\n"
        + "  public static void main(String[] args) {\n"
        + "    Arbiter.builder().pollIntervalMs(1_000);\n"
        + "  }\n"
        + "}\n";
    String diagnostics = compile(stale, Files.createTempDirectory("arbiter-"));
    assertTrue(diagnostics.contains("pollIntervalMs"), diagnostics);
  }
}
