package dev.sqlagent.config;

import java.net.URI;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * What an operator chose for traces and the log's format ({@code SQLAGENT_OTLP_ENDPOINT}, {@code SQLAGENT_OTLP_PROMPTS},
 * {@code SQLAGENT_LOG_FORMAT}; declared in {@link Settings}), checked once at start by {@link AppConfig}.
 *
 * @param endpoint the OTLP/HTTP collector the spans are exported to ({@code .../v1/traces}); empty: tracing off
 * @param prompts the model call's span carries the prompt and the reply (off by default: they hold users' words)
 * @param json the log is one JSON object a line instead of human text
 */
public record TelemetrySettings(Optional<URI> endpoint, boolean prompts, boolean json) {

  /** Tracing off, human text: what an unset environment means. */
  public static final TelemetrySettings OFF = new TelemetrySettings(Optional.empty(), false, false);

  /** From the settings as {@code AppConfig.merged} reads them (the environment over the file). */
  public static TelemetrySettings from(Map<String, String> values) {
    return new TelemetrySettings(endpoint(value(values, "SQLAGENT_OTLP_ENDPOINT")),
        flag(value(values, "SQLAGENT_OTLP_PROMPTS"), "SQLAGENT_OTLP_PROMPTS"), format(value(values, "SQLAGENT_LOG_FORMAT")));
  }

  public boolean tracing() {
    return endpoint.isPresent();
  }

  /**
   * The collector's address as a log line may show it: no user information, no query (either can hold a token).
   */
  public String describe() {
    return "traces=" + endpoint.map(TelemetrySettings::redacted).orElse("off") + (prompts ? " (with prompts)" : "")
        + " logFormat=" + (json ? "json" : "text");
  }

  static String redacted(URI u) {
    return u.getScheme() + "://" + u.getHost() + (u.getPort() < 0 ? "" : ":" + u.getPort()) + u.getRawPath();
  }

  /** An OTLP/HTTP base ({@code http://collector:4318}) gets the traces path; a full {@code .../v1/traces} is kept. */
  static Optional<URI> endpoint(String value) {
    if (value == null || value.isBlank()) return Optional.empty();
    String v = value.strip();
    URI uri;
    try {
      uri = new URI(v);
    } catch (java.net.URISyntaxException e) {
      throw new ConfigException("SQLAGENT_OTLP_ENDPOINT: not a URL (" + e.getReason() + "); expected the OTLP/HTTP "
          + "address of a collector, e.g. http://otel-collector:4318");
    }
    if (uri.getScheme() == null || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))
        || uri.getHost() == null) {
      throw new ConfigException("SQLAGENT_OTLP_ENDPOINT=" + redacted(v) + ": expected an http:// or https:// URL of a "
          + "collector's OTLP/HTTP receiver, e.g. http://otel-collector:4318");
    }
    if (uri.getRawUserInfo() != null) {
      throw new ConfigException("SQLAGENT_OTLP_ENDPOINT: a user or password in the URL is not sent by the exporter; "
          + "reach the collector without one (a sidecar or a network policy)");
    }
    String path = uri.getRawPath() == null ? "" : uri.getRawPath().replaceAll("/+$", "");
    if (!path.endsWith("/v1/traces")) path = path + "/v1/traces";
    return Optional.of(URI.create(uri.getScheme() + "://" + uri.getRawAuthority() + path
        + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery())));
  }

  /** A value that failed to parse, shown without what could be a secret in it. */
  private static String redacted(String v) {
    return v.replaceAll("//[^/@]*@", "//****@").replaceAll("\\?.*", "?****");
  }

  /** The key's value, or its default as {@link Settings} declares it (null for none). */
  private static String value(Map<String, String> values, String key) {
    String v = values.get(key);
    return v == null || v.isBlank() ? Settings.fallback(key) : v;
  }

  private static boolean flag(String v, String key) {
    if (v == null || v.isBlank()) return false;
    String s = v.strip().toLowerCase(Locale.ROOT);
    if (!s.equals("true") && !s.equals("false")) throw new ConfigException(key + "=" + v + ": expected true or false");
    return s.equals("true");
  }

  private static boolean format(String value) {
    if (value == null || value.isBlank()) return false;
    String s = value.strip().toLowerCase(Locale.ROOT);
    if (!s.equals("text") && !s.equals("json")) {
      throw new ConfigException("SQLAGENT_LOG_FORMAT=" + value + ": expected 'text' (the default) or 'json'");
    }
    return s.equals("json");
  }
}
