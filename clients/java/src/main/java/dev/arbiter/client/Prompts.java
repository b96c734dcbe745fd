package dev.arbiter.client;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code client.prompts()}: stored prompts by name, from the polled config, never over the
 * network (docs/prompts.md). The resolution and the rendering are those of the TypeScript and
 * Python clients, pinned by testdata/prompts.json.
 */
public final class Prompts {
  /** The label read when the caller names none. */
  public static final String PRODUCTION = "production";

  /** JavaScript's {@code \s}, so that every client reads the same spaces inside the braces. */
  private static final String SPACE =
      "[\\t\\n\\u000B\\f\\r \\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF]";
  private static final Pattern PLACEHOLDER =
      Pattern.compile("\\{\\{" + SPACE + "*([A-Za-z_][A-Za-z0-9_]*)" + SPACE + "*\\}\\}");

  private final Arbiter client;
  private final Supplier<PromptIndex> index;

  Prompts(Arbiter client, Supplier<PromptIndex> index) {
    this.client = client;
    this.index = index;
  }

  /**
   * Renders a template (docs/wire-format.md#rendering): each {@code {{name}}} (spaces allowed
   * inside the braces) whose name has a String value in {@code variables} becomes that value;
   * every other placeholder stays as it is; nothing is escaped; one pass, so a value is never
   * rendered again. Null variables read as none.
   */
  public static String render(String template, Map<String, ?> variables) {
    if (template == null) return null;
    Map<String, ?> values = variables == null ? Map.of() : variables;
    Matcher m = PLACEHOLDER.matcher(template);
    StringBuilder out = new StringBuilder(template.length());
    int last = 0;
    while (m.find()) {
      Object value = values.get(m.group(1));
      out.append(template, last, m.start()).append(value instanceof String ? (String) value : m.group());
      last = m.end();
    }
    return out.append(template, last, template.length()).toString();
  }

  /** The prompt {@code name} for {@code user} under the {@code production} label; see the full form. */
  public ResolvedPrompt get(String name, String user, String defaultPrompt) {
    return resolve(name, user, defaultPrompt, PRODUCTION, null, null);
  }

  /** {@link #get(String, String, String)} with a chat default. */
  public ResolvedPrompt get(String name, String user, List<PromptMessage> defaultMessages) {
    return resolve(name, user, defaultMessages, PRODUCTION, null, null);
  }

  /** {@link #get(String, String, String, String, Map, Map)} without attributes. */
  public ResolvedPrompt get(String name, String user, String defaultPrompt, String label,
      Map<String, ?> variables) {
    return resolve(name, user, defaultPrompt, label, variables, null);
  }

  /** {@link #get(String, String, String, String, Map)} with a chat default. */
  public ResolvedPrompt get(String name, String user, List<PromptMessage> defaultMessages,
      String label, Map<String, ?> variables) {
    return resolve(name, user, defaultMessages, label, variables, null);
  }

  /**
   * The prompt {@code name} for {@code user}: the user's variant's version when a running
   * experiment covers it (queuing that experiment's exposure, as {@code assign} does, its
   * targeting reading {@code attributes}), else the version under {@code label} (null reads as
   * {@code production}), else {@code defaultPrompt}; rendered with {@code variables}. From
   * memory; never throws.
   */
  public ResolvedPrompt get(String name, String user, String defaultPrompt, String label,
      Map<String, ?> variables, Map<String, ?> attributes) {
    return resolve(name, user, defaultPrompt, label, variables, attributes);
  }

  /** The full form with a chat default. */
  public ResolvedPrompt get(String name, String user, List<PromptMessage> defaultMessages,
      String label, Map<String, ?> variables, Map<String, ?> attributes) {
    return resolve(name, user, defaultMessages, label, variables, attributes);
  }

  /** The full form with attributes prepared beforehand. */
  public ResolvedPrompt get(String name, String user, String defaultPrompt, String label,
      Map<String, ?> variables, PreparedAttributes attributes) {
    return resolve(name, user, defaultPrompt, label, variables,
        PreparedAttributes.mapOf(attributes));
  }

  private ResolvedPrompt resolve(String name, String user, Object def, String label,
      Map<String, ?> variables, Map<String, ?> attributes) {
    try {
      return resolved(name, user, def, label == null ? PRODUCTION : label, variables, attributes);
    } catch (RuntimeException e) {
      client.warnOnce("prompts.get", "prompts.get failed, returning the default: " + e);
      try {
        return defaultAnswer(name, def, Map.of());
      } catch (RuntimeException again) {
        return defaultAnswer(name, "", Map.of());
      }
    }
  }

  /** The resolution of docs/wire-format.md#prompts. */
  private ResolvedPrompt resolved(String name, String user, Object def, String label,
      Map<String, ?> variables, Map<String, ?> attributes) {
    PromptIndex prompts = index.get();
    if (prompts == null) return defaultAnswer(name, def, variables);
    PromptIndex.Entry prompt = name == null ? null : prompts.prompts.get(name);
    PromptIndex.Covering covering = name == null ? null : prompts.covering.get(name);
    if (covering != null) {
      String variant = client.assign(covering.experimentId, user, attributes);
      Long version = variant == null ? null : covering.versions.get(variant);
      Object body = version == null || prompt == null ? null
          : prompt.versions.get(String.valueOf(version));
      if (body instanceof Map) {
        return served(name, (Map<?, ?>) body, version, variables, ResolvedPrompt.Source.EXPERIMENT,
            covering.experimentName, variant);
      }
    }
    Object version = prompt == null ? null : prompt.labels.get(label);
    Object body = version instanceof Long ? prompt.versions.get(String.valueOf(version)) : null;
    if (!(body instanceof Map)) return defaultAnswer(name, def, variables);
    return served(name, (Map<?, ?>) body, (Long) version, variables, ResolvedPrompt.Source.LABEL,
        null, null);
  }

  private static ResolvedPrompt served(String name, Map<?, ?> body, long version,
      Map<String, ?> variables, ResolvedPrompt.Source source, String experiment, String variant) {
    Object text = body.get("text");
    List<String> declared = new ArrayList<>();
    if (body.get("variables") instanceof List) {
      for (Object v : (List<?>) body.get("variables")) declared.add(String.valueOf(v));
    }
    Map<String, Object> settings = new LinkedHashMap<>();
    if (body.get("model_settings") instanceof Map) {
      for (Map.Entry<?, ?> s : ((Map<?, ?>) body.get("model_settings")).entrySet()) {
        settings.put(String.valueOf(s.getKey()), s.getValue());
      }
    }
    return new ResolvedPrompt(name, source, (int) version, experiment, variant,
        text instanceof String ? render((String) text, variables) : null,
        rendered(body.get("messages"), variables), Collections.unmodifiableList(declared),
        Collections.unmodifiableMap(settings));
  }

  /** A chat's messages rendered, from the config's maps or the caller's messages; null if none. */
  private static List<PromptMessage> rendered(Object messages, Map<String, ?> variables) {
    if (!(messages instanceof List)) return null;
    List<PromptMessage> out = new ArrayList<>();
    for (Object m : (List<?>) messages) {
      if (m instanceof PromptMessage) {
        PromptMessage p = (PromptMessage) m;
        out.add(new PromptMessage(p.role(), render(p.content(), variables)));
      } else if (m instanceof Map) {
        Object role = ((Map<?, ?>) m).get("role");
        Object content = ((Map<?, ?>) m).get("content");
        out.add(new PromptMessage(role == null ? null : String.valueOf(role),
            content instanceof String ? render((String) content, variables) : null));
      }
    }
    return Collections.unmodifiableList(out);
  }

  private static ResolvedPrompt defaultAnswer(String name, Object def, Map<String, ?> variables) {
    return new ResolvedPrompt(name, ResolvedPrompt.Source.DEFAULT, null, null, null,
        def instanceof String ? render((String) def, variables) : null,
        rendered(def, variables), List.of(), Map.of());
  }
}
