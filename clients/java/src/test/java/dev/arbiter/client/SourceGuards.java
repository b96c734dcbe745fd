package dev.arbiter.client;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The guards the server holds its TypeScript to, over Java sources: no import cycle between
 * packages and no method, constructor or block lambda over {@link #MAX_METHOD_LINES} lines,
 * counted as the TypeScript guard counts a function (from its first line, annotations included
 * and doc comment excluded, to its closing brace). Read from the text, not a compiler: comments,
 * strings and character literals are blanked first, so a brace or keyword in them never counts.
 */
final class SourceGuards {
  static final int MAX_METHOD_LINES = 60;

  private static final Set<String> NOT_METHODS =
      Set.of("if", "for", "while", "switch", "catch", "synchronized", "try", "return", "new",
          "else", "do", "throw", "assert", "super", "this");
  // A declaration's head: annotations and modifiers, type parameters, a return type, the name,
  // the parameters and a throws clause. Whatever else ends in ')' (a call, a control statement,
  // an anonymous class) fails it or is named by NOT_METHODS.
  private static final Pattern DECLARATION = Pattern.compile(
      "(?:@[\\w.]+(?:\\([^)]*\\))?\\s+)*(?:[\\w.$<>\\[\\],?\\s]+\\s+)?([\\w$]+)\\s*\\(.*\\)"
          + "\\s*(?:throws\\s+[\\w.$,\\s]+)?",
      Pattern.DOTALL);
  private static final Pattern PACKAGE = Pattern.compile("\\bpackage\\s+([\\w.]+)\\s*;");
  // A reference to a type of the client's own packages, imported or written in full.
  private static final Pattern REFERENCE =
      Pattern.compile("\\b(dev\\.arbiter\\.client(?:\\.[a-z_][\\w]*)*)\\.[A-Z]");

  private SourceGuards() {}

  /** Every .java file under the root, by its path relative to the root, with its text. */
  static Map<String, String> read(Path root) {
    try (Stream<Path> files = Files.walk(root)) {
      Map<String, String> sources = new TreeMap<>();
      for (Path file : files.filter(p -> p.toString().endsWith(".java")).collect(
          Collectors.toList())) {
        String name = root.relativize(file).toString().replace('\\', '/');
        sources.put(name, new String(Files.readAllBytes(file), StandardCharsets.UTF_8));
      }
      return sources;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Methods over the limit, as {@code file:line (n lines)}, in file order. */
  static List<String> longMethods(Map<String, String> sources) {
    List<String> long_ = new ArrayList<>();
    for (Map.Entry<String, String> source : sources.entrySet()) {
      long_.addAll(longMethodsIn(source.getKey(), source.getValue()));
    }
    return long_;
  }

  /** The methods of one source text over the limit. */
  static List<String> longMethodsIn(String where, String text) {
    String code = blanked(text);
    int[] lineAt = lineNumbers(code);
    List<String> found = new ArrayList<>();
    Deque<Integer> opened = new ArrayDeque<>();
    Map<Integer, Integer> startOf = new HashMap<>();
    int headStart = 0;
    for (int k = 0; k < code.length(); k++) {
      char c = code.charAt(k);
      if (c == '{') {
        int start = declarationStart(code, headStart, k);
        if (start >= 0) startOf.put(k, start);
        opened.push(k);
        headStart = k + 1;
      } else if (c == '}') {
        Integer open = opened.isEmpty() ? null : opened.pop();
        Integer start = open == null ? null : startOf.get(open);
        int lines = start == null ? 0 : lineAt[k] - lineAt[start] + 1;
        if (lines > MAX_METHOD_LINES) {
          found.add(where + ":" + lineAt[start] + " (" + lines + " lines)");
        }
        headStart = k + 1;
      } else if (c == ';') {
        headStart = k + 1;
      }
    }
    found.sort((a, b) -> Integer.compare(lineOf(a), lineOf(b)));
    return found;
  }

  private static int lineOf(String entry) {
    String[] parts = entry.split("[: ]");
    return Integer.parseInt(parts[1]);
  }

  /** Where the declaration whose body opens at brace starts, or -1 when the block is none. */
  private static int declarationStart(String code, int from, int brace) {
    String head = code.substring(from, brace);
    String trimmed = head.strip();
    if (trimmed.isEmpty()) return -1;
    int start = from + head.indexOf(trimmed.charAt(0));
    if (trimmed.endsWith("->")) return start;
    Matcher m = DECLARATION.matcher(trimmed);
    if (!m.matches() || NOT_METHODS.contains(m.group(1))) return -1;
    String beforeName = trimmed.substring(0, m.start(1));
    if (beforeName.matches("(?s).*\\b(?:new|return|else|throw)\\b.*")) return -1;
    return start;
  }

  /** One-based line number of every offset. */
  private static int[] lineNumbers(String code) {
    int[] lines = new int[code.length() + 1];
    int line = 1;
    for (int k = 0; k < code.length(); k++) {
      lines[k] = line;
      if (code.charAt(k) == '\n') line++;
    }
    lines[code.length()] = line;
    return lines;
  }

  /**
   * The text with every comment, string and character literal replaced by spaces, line breaks
   * kept, so offsets and line numbers stay those of the source.
   */
  static String blanked(String text) {
    StringBuilder out = new StringBuilder(text);
    int k = 0;
    while (k < text.length()) {
      int end = literalEnd(text, k);
      if (end == k) {
        k++;
        continue;
      }
      for (int j = k; j < end; j++) {
        if (out.charAt(j) != '\n') out.setCharAt(j, ' ');
      }
      k = end;
    }
    return out.toString();
  }

  /** The end of the comment or literal starting at k, or k when none starts there. */
  private static int literalEnd(String text, int k) {
    if (text.startsWith("//", k)) {
      int end = text.indexOf('\n', k);
      return end < 0 ? text.length() : end;
    }
    if (text.startsWith("/*", k)) {
      int end = text.indexOf("*/", k + 2);
      return end < 0 ? text.length() : end + 2;
    }
    char c = text.charAt(k);
    if (c != '"' && c != '\'') return k;
    int j = k + 1;
    while (j < text.length() && text.charAt(j) != c && text.charAt(j) != '\n') {
      j += text.charAt(j) == '\\' ? 2 : 1;
    }
    return Math.min(j + 1, text.length());
  }

  /** Each package's set of the client's other packages it refers to. */
  static Map<String, Set<String>> packageGraph(Map<String, String> sources) {
    Map<String, Set<String>> graph = new TreeMap<>();
    for (String text : sources.values()) {
      String code = blanked(text);
      Matcher declared = PACKAGE.matcher(code);
      if (!declared.find()) continue;
      String from = declared.group(1);
      Set<String> targets = graph.computeIfAbsent(from, p -> new TreeSet<>());
      Matcher reference = REFERENCE.matcher(code);
      while (reference.find()) {
        String to = reference.group(1);
        if (!to.equals(from)) targets.add(to);
      }
    }
    return graph;
  }

  /** The cycles of a package graph, each as its packages with the first repeated at the end. */
  static List<List<String>> cycles(Map<String, Set<String>> graph) {
    List<List<String>> found = new ArrayList<>();
    Map<String, Boolean> done = new LinkedHashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    for (String node : graph.keySet()) {
      if (!done.containsKey(node)) visit(node, graph, done, stack, found);
    }
    return found;
  }

  private static void visit(String node, Map<String, Set<String>> graph,
      Map<String, Boolean> done, Deque<String> stack, List<List<String>> found) {
    done.put(node, false);
    stack.addLast(node);
    for (String next : graph.getOrDefault(node, Set.of())) {
      Boolean state = done.get(next);
      if (state == null) {
        visit(next, graph, done, stack, found);
      } else if (!state) {
        List<String> path = new ArrayList<>(stack);
        List<String> cycle = new ArrayList<>(path.subList(path.indexOf(next), path.size()));
        cycle.add(next);
        found.add(cycle);
      }
    }
    stack.removeLast();
    done.put(node, true);
  }
}
