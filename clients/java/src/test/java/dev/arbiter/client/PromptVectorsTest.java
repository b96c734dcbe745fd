package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * testdata/prompts.json, read in place: every rendering, and every {@code prompts().get} case
 * through a ready client with its source, version, rendering and exactly its exposure.
 */
class PromptVectorsTest {
  private static final Map<String, Object> VECTORS = RepoFiles.json("testdata/prompts.json");

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> listOf(String key) {
    return (List<Map<String, Object>>) VECTORS.get(key);
  }

  @Test
  @SuppressWarnings("unchecked")
  void rendersEveryTemplateAsTheVectorsSay() {
    for (Map<String, Object> c : listOf("render")) {
      assertEquals(Arrays.asList(c.get("template"), c.get("expected")),
          Arrays.asList(c.get("template"),
              Prompts.render((String) c.get("template"), (Map<String, ?>) c.get("variables"))));
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> answerOf(ResolvedPrompt got) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("source", got.source().name().toLowerCase(java.util.Locale.ROOT));
    out.put("version", got.version() == null ? null : (long) got.version());
    out.put("experiment", got.experiment());
    out.put("variant", got.variant());
    out.put("text", got.text());
    List<Map<String, Object>> messages = null;
    if (got.messages() != null) {
      messages = new ArrayList<>();
      for (PromptMessage m : got.messages()) {
        Map<String, Object> one = new LinkedHashMap<>();
        one.put("role", m.role());
        one.put("content", m.content());
        messages.add(one);
      }
    }
    out.put("messages", messages);
    return out;
  }

  private static String idOf(Object experiment) {
    for (Object e : (List<?>) VectorCases.config(VECTORS).get("experiments")) {
      if (((Map<?, ?>) e).get("name").equals(experiment)) return (String) ((Map<?, ?>) e).get("id");
    }
    return null;
  }

  @Test
  @SuppressWarnings("unchecked")
  void resolvesEveryCaseWithExactlyItsExposure() throws Exception {
    try (ReadyClient ready = ReadyClient.start(VectorCases.config(VECTORS),
        b -> b.pollInterval(Duration.ofHours(1)))) {
      VectorCases run = new VectorCases(VECTORS, ready);
      for (Map<String, Object> c : listOf("resolve")) {
        ResolvedPrompt got = ready.client.prompts().get((String) c.get("prompt"),
            (String) c.get("user"), (String) c.get("default"), (String) c.get("label"),
            (Map<String, ?>) c.get("variables"), (Map<String, ?>) c.get("attributes"));
        Map<String, Object> expected = new LinkedHashMap<>((Map<String, Object>) c.get("expected"));
        boolean exposure = (Boolean) expected.remove("exposure");
        List<List<Object>> sent = run.sentSinceLastCall();
        assertEquals(Arrays.asList(c.get("name"), expected, exposure ? 1 : 0),
            Arrays.asList(c.get("name"), answerOf(got), sent.size()));
        // An answer of the experiment sent that experiment's exposure, with the user's variant.
        if ("experiment".equals(expected.get("source"))) {
          assertEquals(Arrays.asList(idOf(expected.get("experiment")), c.get("user"),
              expected.get("variant")), sent.get(0));
        }
      }
    }
  }

  @Test
  void answersTheDefaultBeforeAnyConfigAndNeverThrows() {
    try (Arbiter client = Arbiter.builder().apiKey("svc_sk_test").baseUrl("http://127.0.0.1:9")
        .pollInterval(Duration.ofHours(1)).logger(new MemoryLogger()).build()) {
      ResolvedPrompt got = client.prompts().get("p", "u", "Hi {{x}}", null, Map.of("x", "X"));
      assertEquals(Arrays.asList(ResolvedPrompt.Source.DEFAULT, null, "Hi X"),
          Arrays.asList(got.source(), got.version(), got.text()));
      ResolvedPrompt odd = client.prompts().get(null, null,
          List.of(new PromptMessage("user", "{{x}}")));
      assertEquals(List.of(new PromptMessage("user", "{{x}}")), odd.messages());
      assertEquals(null, odd.text());
    }
  }
}
