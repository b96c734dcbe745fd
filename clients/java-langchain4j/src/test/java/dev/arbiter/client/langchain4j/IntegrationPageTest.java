package dev.arbiter.client.langchain4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * docs/integrations/langchain4j.md's Java blocks compile as printed, with the build's flags,
 * inside a method whose parameters are what the page takes as given ({@code arbiter},
 * {@code userId}, and for the second block {@code model}): a renamed method in the page fails
 * here. The page opens with its five-line example.
 */
class IntegrationPageTest {
  private static final Pattern JAVA_BLOCK = Pattern.compile("(?ms)^```java\\n(.*?)^```$");
  private static final String IMPORTS = String.join("\n",
      "import dev.arbiter.client.Arbiter;",
      "import dev.arbiter.client.langchain4j.ArbiterChatModelListener;",
      "import dev.langchain4j.data.message.UserMessage;",
      "import dev.langchain4j.model.chat.ChatModel;",
      "import dev.langchain4j.model.chat.ChatRequestOptions;",
      "import dev.langchain4j.model.chat.request.ChatRequest;",
      "import dev.langchain4j.model.chat.response.ChatResponse;",
      "import dev.langchain4j.model.openai.OpenAiChatModel;",
      "import java.util.List;", "");

  private static List<String> blocks() throws Exception {
    Path root = Path.of(System.getProperty("arbiter.repoRoot", "../..")).toAbsolutePath();
    String page = Files.readString(root.resolve("docs/integrations/langchain4j.md"),
        StandardCharsets.UTF_8);
    Matcher m = JAVA_BLOCK.matcher(page);
    List<String> blocks = new ArrayList<>();
    while (m.find()) blocks.add(m.group(1));
    assertTrue(page.startsWith("# LangChain4j\n\n```java\n"), "the page opens with its example");
    return blocks;
  }

  private static String compile(String body, String parameters) throws Exception {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    assertNotNull(javac, "tests run on a JDK");
    String source = IMPORTS + "class Page {\n  static void run(" + parameters + ") {\n" + body
        + "  }\n}\n";
    JavaFileObject file = new SimpleJavaFileObject(URI.create("string:///Page.java"),
        JavaFileObject.Kind.SOURCE) {
      @Override
      public CharSequence getCharContent(boolean ignoreEncodingErrors) {
        return source;
      }
    };
    // Surefire runs the tests from a manifest-only jar; it names the real classpath here.
    String classpath = System.getProperty("surefire.test.class.path",
        System.getProperty("java.class.path"));
    Path out = Files.createTempDirectory("arbiter-langchain4j-page-");
    StringWriter diagnostics = new StringWriter();
    try {
      boolean ok = javac.getTask(diagnostics, null, null, List.of("--release", "17", "-Xlint:all",
          "-Werror", "-proc:none", "-classpath", classpath, "-d", out.toString()), null,
          List.of(file)).call();
      return ok ? "" : diagnostics.toString();
    } finally {
      try (Stream<Path> made = Files.walk(out)) {
        for (Path p : made.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) {
          Files.delete(p);
        }
      }
    }
  }

  @Test
  void theFiveLineExampleCompiles() throws Exception {
    String example = blocks().get(0);
    assertEquals(5, example.split("\n").length, example);
    assertEquals("", compile(example, "Arbiter arbiter, String userId"));
  }

  @Test
  void theListenerAttributeExampleCompiles() throws Exception {
    List<String> blocks = blocks();
    assertEquals(2, blocks.size());
    assertEquals("", compile(blocks.get(1), "ChatModel model, String userId"));
  }

  /** The check itself: a page calling a method that does not exist would fail it. */
  @Test
  void aStaleCallWouldFailIt() throws Exception {
    String diagnostics = compile("arbiter.withUserId(userId, () -> 1);\n",
        "Arbiter arbiter, String userId");
    assertTrue(diagnostics.contains("withUserId"), diagnostics);
  }
}
