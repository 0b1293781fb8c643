package dev.sqlagent.config;

import dev.sqlagent.db.PgEnvironment;
import dev.sqlagent.db.PgUrl;
import dev.sqlagent.network.TrustedProxies;
import dev.sqlagent.users.OidcSettings;
import dev.sqlagent.users.Users;
import dev.sqlagent.users.UsersFile;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * The service's settings, typed and checked once at start. Each comes from an environment variable, or
 * the same key in a properties file named by {@code SQLAGENT_CONFIG}; the environment wins. Every key and its
 * default is declared in {@link Settings}. A bad value stops the start with a message that names the key, the
 * value and what is expected.
 */
public record AppConfig(
    Optional<PgUrl> dbUrl,
    Optional<PgUrl> stateUrl,
    List<String> schemas,
    Optional<Path> notesFile,
    boolean allowWritableRole,
    int promptBudgetTokens,
    Path home,
    String httpHost,
    int httpPort,
    String llmBaseUrl,
    String llmModel,
    List<String> llmApiKeys,
    int rowCap,
    double maxPlanCost,
    int statementTimeoutMs,
    int lockTimeoutMs,
    int llmCallTimeoutMs,
    int questionTimeoutMs,
    // The model's context in tokens when its server does not say (SQLAGENT_LLM_CONTEXT_TOKENS; 0: unknown).
    int llmContextTokens,
    double promptPricePerMTok,
    double completionPricePerMTok,
    boolean llmAnswerSummary,
    Optional<String> apiToken,
    int logBufferRows,
    int logRetryMaxMs,
    int healthTimeoutMs,
    int maxBodyBytes,
    int askPerClient,
    Optional<String> allowedOrigin,
    // The URL clients reach the service at (SQLAGENT_PUBLIC_URL): names the MCP endpoint in its OAuth metadata.
    Optional<String> publicUrl,
    // Limits against hostile input and heavy load.
    long maxResultBytes,
    int askInFlight,
    int askQueue,
    int llmMaxConnections,
    int httpIdleTimeoutMs,
    int httpHeaderTimeoutMs,
    // Several candidates voted by their results.
    int candidates,
    double candidateTemperature,
    // Users and their rights.
    Users users,
    // Conversations and verified queries.
    int conversationDays,
    int conversationBudgetTokens,
    double verifiedThreshold,
    // User functions a query may call by name (SQLAGENT_ALLOW_FUNCTIONS and the notes file's allow_functions).
    List<FunctionName> allowFunctions,
    // A connection pooler in front of the target (PgBouncer, Supavisor, RDS Proxy) in transaction mode.
    boolean transactionPooler,
    // Connections of the state store's owner pool, shared by every feature that reads or writes it.
    int statePoolSize,
    // The company's sign-on: bearer tokens verified against the issuer's keys (SQLAGENT_OIDC_*).
    Optional<OidcSettings> oidc,
    // Proxies whose forwarded-client headers are believed (SQLAGENT_TRUSTED_PROXIES).
    TrustedProxies trustedProxies,
    // What the model may see (SQLAGENT_MODEL_SEES) and the notes file as read at start (its sensitive columns).
    dev.sqlagent.policy.ModelSees modelSees,
    dev.sqlagent.notes.Notes notes,
    // Exports of a result as CSV or XLSX: their own row cap and byte bound.
    int exportMaxRows,
    long exportMaxBytes,
    // Functions the agent role may execute that the read-only proof accepts, guarded by the gate alone
    // (SQLAGENT_ACCEPT_EXECUTABLE).
    List<FunctionName> acceptExecutable,
    // How many exports run at once: per user, and on the gate's own export connections; how long a client may stall.
    int exportsPerUser,
    int exportConnections,
    int exportStallMs,
    // A GGUF served by a child process when no model server is configured (SQLAGENT_LLM_MODEL_PATH, SQLAGENT_HOME/models).
    Optional<Path> localModel,
    // Several nodes on one clustered event bus (SQLAGENT_CLUSTER*); disabled: one process.
    ClusterSettings cluster,
    // Traces and the log's format (SQLAGENT_OTLP_*, SQLAGENT_LOG_FORMAT).
    TelemetrySettings telemetry,
    // How long the questions in flight may take to finish once the process is told to stop (SQLAGENT_DRAIN_SECONDS).
    int drainSeconds) {

  /** A function named {@code schema.name}, each part as the catalogue spells it (unquoted parts lower-cased). */
  public record FunctionName(String schema, String name) {
    /**
     * Parses {@code schema.name} as SQL writes it: an unquoted part is lower-cased, a "quoted" one kept as is.
     *
     * @throws IllegalArgumentException saying what is wrong with {@code text}
     */
    public static FunctionName parse(String text) {
      List<String> parts = new ArrayList<>();
      String s = text.strip();
      int i = 0;
      while (true) {
        StringBuilder part = new StringBuilder();
        if (i < s.length() && s.charAt(i) == '"') {
          int j = i + 1;
          for (; j < s.length(); j++) {
            if (s.charAt(j) != '"') {
              part.append(s.charAt(j));
            } else if (j + 1 < s.length() && s.charAt(j + 1) == '"') {
              part.append('"');
              j++;
            } else {
              break;
            }
          }
          if (j >= s.length()) throw new IllegalArgumentException("'" + text + "' has a quote that is never closed");
          i = j + 1;
        } else {
          int j = i;
          while (j < s.length() && s.charAt(j) != '.') j++;
          part.append(s.substring(i, j).strip().toLowerCase(java.util.Locale.ROOT));
          if (!part.toString().matches("[\\p{L}_][\\p{L}\\p{N}_$]*")) {
            throw new IllegalArgumentException("'" + text + "' is not schema.function (a name may be \"quoted\")");
          }
          i = j;
        }
        parts.add(part.toString());
        if (i >= s.length()) break;
        if (s.charAt(i) != '.') throw new IllegalArgumentException("'" + text + "' is not schema.function");
        i++;
      }
      if (parts.size() != 2) throw new IllegalArgumentException("'" + text + "' is not schema.function: name its schema too");
      return new FunctionName(parts.get(0), parts.get(1));
    }

    @Override
    public String toString() {
      return schema + "." + name;
    }
  }

  private static final List<String> SECRETS = List.of("SQLAGENT_LLM_API_KEY", "SQLAGENT_API_TOKEN");

  /** Reads the process environment (and SQLAGENT_CONFIG's file, if set). */
  public static AppConfig fromEnvironment() {
    return load(System.getenv());
  }

  public static AppConfig load(Map<String, String> env) {
    return from(merged(env), PgEnvironment.of(env));
  }

  /** The file's keys under the environment's; unknown SQLAGENT_ keys are refused, not ignored. */
  public static Map<String, String> merged(Map<String, String> env) {
    Map<String, String> values = new HashMap<>();
    String file = env.get("SQLAGENT_CONFIG");
    if (file != null && !file.isBlank()) {
      Properties p = new Properties();
      try (Reader r = Files.newBufferedReader(Path.of(file))) {
        p.load(r);
      } catch (IOException e) {
        throw new ConfigException("SQLAGENT_CONFIG=" + file + ": cannot read the file (" + e.getMessage() + ")");
      }
      for (String k : p.stringPropertyNames()) values.put(k.trim(), p.getProperty(k).trim());
    }
    env.forEach((k, v) -> {
      if (k.startsWith("SQLAGENT_")) values.put(k, v);
    });
    for (String k : values.keySet()) {
      if (!Settings.keys().contains(k)) {
        throw new ConfigException(k + " is not a setting of sql-agent; known: " + String.join(", ", Settings.keys()));
      }
    }
    return values;
  }

  static AppConfig from(Map<String, String> v) {
    return from(v, PgEnvironment.of(Map.of()));
  }

  /** With the PG* variables libpq would read as the URLs' fallbacks. */
  static AppConfig from(Map<String, String> v, PgEnvironment pg) {
    Values r = new Values(v, pg);
    Optional<PgUrl> db = r.url("SQLAGENT_DB_URL");
    Optional<PgUrl> state = r.url("SQLAGENT_STATE_URL");
    List<String> schemas = r.optional("SQLAGENT_SCHEMAS")
        .map(s -> Arrays.stream(s.split(",")).map(String::trim).filter(x -> !x.isEmpty()).toList())
        .orElse(List.of());
    Optional<Path> notes = r.optional("SQLAGENT_NOTES").map(Path::of);
    if (notes.isPresent() && !Files.isReadable(notes.get())) {
      throw new ConfigException("SQLAGENT_NOTES=" + notes.get() + ": no readable file there");
    }
    String writable = r.string("SQLAGENT_ALLOW_WRITABLE_ROLE").toLowerCase(java.util.Locale.ROOT);
    if (!writable.equals("true") && !writable.equals("false")) {
      throw new ConfigException("SQLAGENT_ALLOW_WRITABLE_ROLE=" + writable + ": expected true or false");
    }
    Path home = r.optional("SQLAGENT_HOME").map(Path::of).orElseGet(AppConfig::defaultHome);
    String summary = r.string("SQLAGENT_ANSWER_SUMMARY");
    if (!summary.equals("model") && !summary.equals("plain")) {
      throw new ConfigException("SQLAGENT_ANSWER_SUMMARY=" + summary + ": expected 'model' or 'plain'");
    }
    String base = r.string("SQLAGENT_LLM_BASE_URL").replaceAll("/+$", "");
    Optional<Path> localModel = localModel(v, home);
    if (!base.startsWith("http://") && !base.startsWith("https://")) {
      throw new ConfigException("SQLAGENT_LLM_BASE_URL=" + base + ": expected an http:// or https:// URL ending in /v1");
    }
    List<String> keys = r.optional("SQLAGENT_LLM_API_KEY")
        .map(s -> Arrays.stream(s.split(",")).map(String::trim).filter(x -> !x.isEmpty()).toList())
        .orElse(List.of());
    if (keys.size() > 2) throw new ConfigException("SQLAGENT_LLM_API_KEY: at most two keys (primary,failover)");
    dev.sqlagent.notes.Notes notesRead = notes(notes);
    return new AppConfig(db, state, schemas, notes, writable.equals("true"),
        r.integer("SQLAGENT_PROMPT_BUDGET", 500, 200_000), home,
        r.string("SQLAGENT_HTTP_HOST"),
        r.integer("SQLAGENT_HTTP_PORT", 0, 65_535),
        base,
        r.string("SQLAGENT_LLM_MODEL"),
        keys,
        r.integer("SQLAGENT_ROW_CAP", 1, 10_000),
        r.decimal("SQLAGENT_MAX_PLAN_COST", 1, 1e12),
        r.integer("SQLAGENT_STATEMENT_TIMEOUT_MS", 100, 600_000),
        r.integer("SQLAGENT_LOCK_TIMEOUT_MS", 10, 60_000),
        r.given("SQLAGENT_LLM_TIMEOUT_MS") || !onLoopback(base) ? r.integer("SQLAGENT_LLM_TIMEOUT_MS", 100, 3_600_000)
            : LOCAL_LLM_TIMEOUT_MS,
        r.given("SQLAGENT_QUESTION_TIMEOUT_MS") || !onLoopback(base) ? r.integer("SQLAGENT_QUESTION_TIMEOUT_MS", 100, 3_600_000)
            : LOCAL_QUESTION_TIMEOUT_MS,
        r.integer("SQLAGENT_LLM_CONTEXT_TOKENS", 0, 10_000_000),
        r.decimal("SQLAGENT_PROMPT_PRICE", 0, 1e6),
        r.decimal("SQLAGENT_COMPLETION_PRICE", 0, 1e6),
        summary.equals("model"),
        r.optional("SQLAGENT_API_TOKEN"),
        r.integer("SQLAGENT_LOG_BUFFER_ROWS", 1, 1_000_000),
        r.integer("SQLAGENT_LOG_RETRY_MAX_MS", 250, 600_000),
        r.integer("SQLAGENT_HEALTH_TIMEOUT_MS", 100, 60_000),
        r.integer("SQLAGENT_MAX_BODY_BYTES", 4_096, 16 * 1024 * 1024),
        r.integer("SQLAGENT_ASK_PER_CLIENT", 1, 1_000),
        r.optional("SQLAGENT_ALLOWED_ORIGIN").map(AppConfig::origin),
        r.optional("SQLAGENT_PUBLIC_URL").map(AppConfig::publicUrl),
        r.integer("SQLAGENT_MAX_RESULT_BYTES", 65_536, 256 * 1024 * 1024),
        r.integer("SQLAGENT_ASK_IN_FLIGHT", 1, 10_000),
        r.integer("SQLAGENT_ASK_QUEUE", 0, 100_000),
        r.integer("SQLAGENT_LLM_MAX_CONNECTIONS", 1, 1_000),
        r.integer("SQLAGENT_HTTP_IDLE_TIMEOUT_MS", 1_000, 3_600_000),
        r.integer("SQLAGENT_HTTP_HEADER_TIMEOUT_MS", 500, 600_000),
        r.given("SQLAGENT_CANDIDATES") || localModel.isEmpty() ? r.integer("SQLAGENT_CANDIDATES", 1, 16)
            : LOCAL_MODEL_CANDIDATES,
        r.decimal("SQLAGENT_CANDIDATE_TEMPERATURE", 0, 2),
        users(r),
        r.integer("SQLAGENT_CONVERSATION_DAYS", 1, 3_650),
        r.integer("SQLAGENT_CONVERSATION_BUDGET", 100, 100_000),
        r.decimal("SQLAGENT_VERIFIED_THRESHOLD", 0.5, 1.0),
        allowFunctions(r, notesRead),
        pooler(r),
        r.integer("SQLAGENT_STATE_POOL_SIZE", 1, 200),
        oidc(r),
        trustedProxies(r),
        modelSees(r),
        notesRead,
        r.integer("SQLAGENT_EXPORT_MAX_ROWS", 1, 10_000_000),
        r.integer("SQLAGENT_EXPORT_MAX_BYTES", 65_536, Integer.MAX_VALUE),
        functionNames(r, "SQLAGENT_ACCEPT_EXECUTABLE"),
        r.integer("SQLAGENT_EXPORTS_PER_USER", 1, 1_000),
        r.integer("SQLAGENT_EXPORT_CONNECTIONS", 1, 100),
        r.integer("SQLAGENT_EXPORT_STALL_MS", 1_000, 3_600_000),
        localModel,
        ClusterSettings.from(v),
        TelemetrySettings.from(v),
        r.integer("SQLAGENT_DRAIN_SECONDS", 0, 3_600));
  }

  /** Whether SQLAGENT_ACCEPT_EXECUTABLE names the function {@code schema.name} (as the catalogue spells them). */
  public boolean acceptsExecutable(String schema, String name) {
    return acceptExecutable.contains(new FunctionName(schema, name));
  }

  /** A comma-separated list of schema.name. */
  private static List<FunctionName> functionNames(Values r, String key) {
    List<FunctionName> out = new ArrayList<>();
    for (String item : r.optional(key).map(s -> s.split(",")).orElse(new String[0])) {
      if (item.isBlank()) continue;
      try {
        out.add(FunctionName.parse(item));
      } catch (IllegalArgumentException e) {
        throw new ConfigException(key + ": " + e.getMessage());
      }
    }
    return List.copyOf(out);
  }

  /**
   * The model file to serve locally: only when no model server is named (SQLAGENT_LLM_BASE_URL unset), then
   * SQLAGENT_LLM_MODEL_PATH, else the first {@code *.gguf} (by name) under {@code home/models}.
   */
  static Optional<Path> localModel(Map<String, String> v, Path home) {
    String base = v.get("SQLAGENT_LLM_BASE_URL");
    String path = v.get("SQLAGENT_LLM_MODEL_PATH");
    boolean baseSet = base != null && !base.isBlank();
    if (path != null && !path.isBlank()) {
      if (baseSet) {
        throw new ConfigException("SQLAGENT_LLM_MODEL_PATH and SQLAGENT_LLM_BASE_URL are both set: set the file to serve it "
            + "locally, or the URL to use a model server, not both");
      }
      Path file = Path.of(path.trim());
      if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
        throw new ConfigException("SQLAGENT_LLM_MODEL_PATH=" + file + ": no readable file there");
      }
      return Optional.of(file);
    }
    if (baseSet) return Optional.empty();
    Path dir = home.resolve("models");
    if (!Files.isDirectory(dir)) return Optional.empty();
    try (java.util.stream.Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().toLowerCase(java.util.Locale.ROOT).endsWith(".gguf"))
          .filter(Files::isRegularFile).sorted().findFirst();
    } catch (IOException e) {
      throw new ConfigException(dir + ": cannot list the models there (" + e.getMessage() + ")");
    }
  }

  /**
   * The same settings with the model server the service started itself (a local model's child process); a component
   * added to the record is added here too (the compiler insists).
   */
  public AppConfig withModelServer(String baseUrl, String model) {
    return new AppConfig(dbUrl, stateUrl, schemas, notesFile, allowWritableRole, promptBudgetTokens, home, httpHost,
        httpPort, baseUrl, model, List.of(), rowCap, maxPlanCost, statementTimeoutMs, lockTimeoutMs, llmCallTimeoutMs,
        questionTimeoutMs, llmContextTokens, promptPricePerMTok, completionPricePerMTok, llmAnswerSummary, apiToken,
        logBufferRows, logRetryMaxMs, healthTimeoutMs, maxBodyBytes, askPerClient, allowedOrigin, publicUrl, maxResultBytes,
        askInFlight, askQueue, llmMaxConnections, httpIdleTimeoutMs, httpHeaderTimeoutMs, candidates,
        candidateTemperature, users, conversationDays, conversationBudgetTokens, verifiedThreshold, allowFunctions,
        transactionPooler, statePoolSize, oidc, trustedProxies, modelSees, notes, exportMaxRows, exportMaxBytes,
        acceptExecutable, exportsPerUser, exportConnections, exportStallMs, localModel, cluster, telemetry, drainSeconds);
  }

  /** SQLAGENT_OIDC_*: present when an issuer is set. */
  private static Optional<OidcSettings> oidc(Values r) {
    Optional<String> issuer = r.optional("SQLAGENT_OIDC_ISSUER");
    Optional<String> rowSettings = r.optional("SQLAGENT_OIDC_SETTINGS");
    if (issuer.isEmpty()) {
      if (rowSettings.isPresent()) {
        throw new ConfigException("SQLAGENT_OIDC_SETTINGS is set but SQLAGENT_OIDC_ISSUER is not: the settings come from "
            + "sign-on tokens' claims (users of the users file take theirs from its settings:)");
      }
      return Optional.empty();
    }
    if (r.optional("SQLAGENT_API_TOKEN").isPresent()) {
      throw new ConfigException("SQLAGENT_OIDC_ISSUER and SQLAGENT_API_TOKEN are both set: with a sign-on every user has a "
          + "token of their own; unset SQLAGENT_API_TOKEN");
    }
    try {
      return Optional.of(OidcSettings.of(issuer.get(), r.optional("SQLAGENT_OIDC_AUDIENCE").orElse(null),
          r.optional("SQLAGENT_OIDC_CLIENT_ID").orElse(null), r.integer("SQLAGENT_OIDC_CLOCK_SKEW_S", 0, 3_600),
          r.optional("SQLAGENT_OIDC_CLAIMS").orElse(null), r.optional("SQLAGENT_OIDC_SCOPES").orElse(null),
          r.integer("SQLAGENT_OIDC_KEYS_REFETCH_S", 1, 86_400)).withRowSettings(rowSettings.orElse(null)));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
  }

  private static TrustedProxies trustedProxies(Values r) {
    try {
      return TrustedProxies.parse(r.optional("SQLAGENT_TRUSTED_PROXIES").orElse(null));
    } catch (IllegalArgumentException e) {
      throw new ConfigException("SQLAGENT_TRUSTED_PROXIES: " + e.getMessage());
    }
  }

  /**
   * The session settings every user's statements carry (row rules): those of {@code SQLAGENT_OIDC_SETTINGS} and those
   * any users-file user sets, sorted; empty without row rules.
   */
  public List<String> rowSettingNames() {
    java.util.TreeSet<String> names = new java.util.TreeSet<>(users.settingNames());
    oidc.ifPresent(o -> names.addAll(o.rowSettings().names()));
    return List.copyOf(names);
  }

  /** Whether every request must name a user: a users file, a sign-on, or both. */
  public boolean identityRequired() {
    return users.configured() || oidc.isPresent();
  }

  /** SQLAGENT_MODEL_SEES: schema, values, samples or results. */
  private static dev.sqlagent.policy.ModelSees modelSees(Values r) {
    String v = r.string("SQLAGENT_MODEL_SEES");
    try {
      return dev.sqlagent.policy.ModelSees.parse(v);
    } catch (IllegalArgumentException e) {
      throw new ConfigException("SQLAGENT_MODEL_SEES=" + v + ": " + e.getMessage() + " (what of the database the model "
          + "is sent; each level adds to the one before)");
    }
  }

  /** The notes file as read at start (its sensitive columns reach the gate); none: no notes. */
  private static dev.sqlagent.notes.Notes notes(Optional<Path> notes) {
    if (notes.isEmpty()) return dev.sqlagent.notes.Notes.EMPTY;
    try {
      return dev.sqlagent.notes.NotesFile.load(notes.get());
    } catch (dev.sqlagent.notes.NotesException e) {
      throw new ConfigException("SQLAGENT_NOTES=" + notes.get() + ": " + e.getMessage());
    }
  }

  /** SQLAGENT_ALLOW_FUNCTIONS, then the notes file's allow_functions: each a schema.name the gate lets a query call. */
  private static List<FunctionName> allowFunctions(Values r, dev.sqlagent.notes.Notes notes) {
    List<FunctionName> out = new ArrayList<>();
    for (String item : r.optional("SQLAGENT_ALLOW_FUNCTIONS").map(s -> s.split(",")).orElse(new String[0])) {
      if (item.isBlank()) continue;
      try {
        out.add(FunctionName.parse(item));
      } catch (IllegalArgumentException e) {
        throw new ConfigException("SQLAGENT_ALLOW_FUNCTIONS: " + e.getMessage());
      }
    }
    for (String item : notes.allowFunctions()) {
      try {
        out.add(FunctionName.parse(item));
      } catch (IllegalArgumentException e) {
        throw new ConfigException("SQLAGENT_NOTES=" + r.string("SQLAGENT_NOTES") + ": " + e.getMessage());
      }
    }
    return List.copyOf(out);
  }

  /** Whether the target is behind a pooler in transaction mode ({@code SQLAGENT_DB_POOLER}). */
  private static boolean pooler(Values r) {
    String p = r.string("SQLAGENT_DB_POOLER").toLowerCase(java.util.Locale.ROOT);
    if (!p.equals("none") && !p.equals("session") && !p.equals("transaction")) {
      throw new ConfigException("SQLAGENT_DB_POOLER=" + p + ": expected 'none', 'session' or 'transaction' (the pool mode "
          + "of the pooler in front of the target; PgBouncer's pool_mode)");
    }
    return p.equals("transaction");
  }

  private static Users users(Values r) {
    Optional<String> file = r.optional("SQLAGENT_USERS");
    if (file.isEmpty()) return Users.NONE;
    if (r.optional("SQLAGENT_API_TOKEN").isPresent()) {
      throw new ConfigException("SQLAGENT_USERS and SQLAGENT_API_TOKEN are both set: with a users file every user has a "
          + "token of their own; unset SQLAGENT_API_TOKEN");
    }
    Users users;
    try {
      users = UsersFile.load(Path.of(file.get()));
    } catch (IllegalArgumentException e) {
      throw new ConfigException("SQLAGENT_USERS=" + e.getMessage());
    }
    if (!users.configured() && r.optional("SQLAGENT_OIDC_ISSUER").isEmpty()) {
      throw new ConfigException("SQLAGENT_USERS=" + file.get() + " lists no users, only budgets: that is for users who "
          + "sign on (SQLAGENT_OIDC_ISSUER); add users, or set the issuer");
    }
    return users;
  }

  /** scheme://host[:port], nothing more: what browsers send in the Origin header. */
  static String origin(String s) {
    String o = s.replaceAll("/+$", "").toLowerCase(java.util.Locale.ROOT);
    if (!o.matches("https?://[A-Za-z0-9.\\-\\[\\]:]+")) {
      throw new ConfigException("SQLAGENT_ALLOWED_ORIGIN=" + s + ": expected an origin like https://agent.example or http://host:8080 (no path)");
    }
    return o;
  }

  /** {@code https://host[:port][/path]}: a URL a client can reach, without query, fragment or trailing slash. */
  static String publicUrl(String s) {
    String u = s.strip().replaceAll("/+$", "");
    java.net.URI uri;
    try {
      uri = new java.net.URI(u);
    } catch (java.net.URISyntaxException e) {
      uri = null;
    }
    if (uri == null || !("https".equals(uri.getScheme()) || "http".equals(uri.getScheme())) || uri.getHost() == null
        || uri.getRawQuery() != null || uri.getRawFragment() != null || uri.getRawUserInfo() != null || u.contains("\"")) {
      throw new ConfigException("SQLAGENT_PUBLIC_URL=" + s + ": expected the URL clients reach the service at, like "
          + "https://agent.example.com or https://intranet.example.com/sql-agent (no query, no fragment)");
    }
    return u;
  }

  static Path defaultHome() {
    return Path.of(System.getProperty("user.home"), ".sql-agent");
  }

  /**
   * Vert.x's options for these databases: a Unix-socket URL needs Netty's native transport (epoll), which the
   * reactive client requires for domain sockets; TCP-only configurations keep the default transport.
   */
  public io.vertx.core.VertxOptions vertxOptions() {
    boolean socket = java.util.stream.Stream.concat(dbUrl.stream(), stateUrl.stream())
        .anyMatch(u -> u.endpoints().stream().anyMatch(PgUrl.Endpoint::socket));
    return new io.vertx.core.VertxOptions().setPreferNativeTransport(socket);
  }

  /** The settings as the log line shows them: secrets masked. */
  public String describe() {
    List<String> parts = new ArrayList<>();
    parts.add("target=" + dbUrl.map(PgUrl::toString).orElse("embedded demo"));
    if (transactionPooler) parts.add("pooler=transaction");
    parts.add("state=" + stateUrl.map(PgUrl::toString).orElse("embedded") + " statePoolSize=" + statePoolSize);
    parts.add("schemas=" + (schemas.isEmpty() ? "all" : String.join(",", schemas)));
    parts.add("notes=" + notesFile.map(Path::toString).orElse("none"));
    parts.add("modelSees=" + modelSees.wireName());
    if (allowWritableRole) parts.add("allowWritableRole=true");
    if (!acceptExecutable.isEmpty()) {
      parts.add("acceptExecutable=" + String.join(",", acceptExecutable.stream().map(FunctionName::toString).toList()));
    }
    parts.add("promptBudget=" + promptBudgetTokens);
    parts.add("home=" + home);
    parts.add("http=" + httpHost + ":" + httpPort);
    parts.add("llm=" + llmBaseUrl + " model=" + llmModel + " keys=" + describeKeys(llmApiKeys));
    localModel.ifPresent(f -> parts.add("localModel=" + f));
    parts.add("rowCap=" + rowCap + " maxPlanCost=" + maxPlanCost);
    parts.add("statementTimeoutMs=" + statementTimeoutMs + " lockTimeoutMs=" + lockTimeoutMs);
    parts.add("llmTimeoutMs=" + llmCallTimeoutMs + " questionTimeoutMs=" + questionTimeoutMs);
    parts.add("answerSummary=" + (llmAnswerSummary ? "model" : "plain"));
    parts.add("apiToken=" + (apiToken.isPresent() ? "****" : "unset"));
    parts.add("users=" + (users.configured() ? users.all().size() : "none"));
    oidc.ifPresent(o -> parts.add("oidc=" + o));
    if (trustedProxies.configured()) parts.add("trustedProxies=" + trustedProxies);
    parts.add("logBufferRows=" + logBufferRows + " logRetryMaxMs=" + logRetryMaxMs + " healthTimeoutMs=" + healthTimeoutMs);
    parts.add("maxBodyBytes=" + maxBodyBytes + " askPerClient=" + askPerClient);
    parts.add("allowedOrigin=" + allowedOrigin.orElse("own"));
    parts.add("maxResultBytes=" + maxResultBytes + " askInFlight=" + askInFlight + " askQueue=" + askQueue
        + " llmMaxConnections=" + llmMaxConnections + " httpIdleTimeoutMs=" + httpIdleTimeoutMs
        + " httpHeaderTimeoutMs=" + httpHeaderTimeoutMs);
    parts.add("candidates=" + candidates + " candidateTemperature=" + candidateTemperature);
    parts.add("conversationDays=" + conversationDays + " conversationBudget=" + conversationBudgetTokens
        + " verifiedThreshold=" + verifiedThreshold);
    parts.add("exportMaxRows=" + exportMaxRows + " exportMaxBytes=" + exportMaxBytes + " exportsPerUser=" + exportsPerUser
        + " exportConnections=" + exportConnections + " exportStallMs=" + exportStallMs);
    if (cluster.enabled()) parts.add(cluster.describe());
    parts.add("drainSeconds=" + drainSeconds);
    return String.join(", ", parts);
  }

  @Override
  public String toString() {
    return "AppConfig[" + describe() + "]";
  }

  /** The waits derived from the timeouts above (see {@link Deadlines}). */
  public Deadlines deadlines() {
    return Deadlines.of(this);
  }

  /** API keys as a log line shows them: how many, never their text ("none" when there are none). */
  public static String describeKeys(List<String> keys) {
    return keys.isEmpty() ? "none" : keys.size() + "x****";
  }

  public static boolean isSecret(String key) {
    return SECRETS.contains(key);
  }

  /**
   * A model served on this machine (loopback) is most likely a small model on a CPU: measured on 2 shared cores, a
   * 0.5B model read a 1,162-token prompt in 132 s before its first token (8.8 tokens/s) and wrote 15 tokens/s; a
   * question takes one to three such calls, the first one cold. Unset timeouts fit that instead of a hosted API's.
   */
  public static final int LOCAL_LLM_TIMEOUT_MS = 300_000;
  public static final int LOCAL_QUESTION_TIMEOUT_MS = 900_000;

  /**
   * The model the service serves itself is a small model on this machine's CPU, where tokens cost nothing and the
   * server's prompt cache reads the prompt once for all the replies: on Spider dev's default subset with a 0.5B model,
   * three candidates voted by their results answered 12.5 points more than one, in about the same time per question
   * (docs/measurements.md, "A small local model on Spider dev").
   */
  public static final int LOCAL_MODEL_CANDIDATES = 3;

  /** Whether the model's base URL names this machine. */
  static boolean onLoopback(String baseUrl) {
    try {
      String host = java.net.URI.create(baseUrl).getHost();
      if (host == null) return false;
      String h = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
      return h.equalsIgnoreCase("localhost") || h.startsWith("127.") || h.equals("::1") || h.equals("0:0:0:0:0:0:0:1");
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** Typed reads with the key's default and a precise message on a bad value. */
  private record Values(Map<String, String> values, PgEnvironment pg) {
    /** Whether the setting was given (not only defaulted). */
    boolean given(String key) {
      String v = values.get(key);
      return v != null && !v.isBlank();
    }

    Optional<String> optional(String key) {
      String v = values.get(key);
      if (v == null || v.isBlank()) v = Settings.fallback(key);
      return Optional.ofNullable(v).map(String::trim);
    }

    Optional<PgUrl> url(String key) {
      return optional(key).map(s -> {
        try {
          return PgUrl.parse(s, pg);
        } catch (IllegalArgumentException e) {
          throw new ConfigException(key + ": " + e.getMessage());
        }
      });
    }

    String string(String key) {
      return optional(key).orElseThrow(() -> new ConfigException(key + " must be set"));
    }

    int integer(String key, int min, int max) {
      String s = string(key);
      try {
        int n = Integer.parseInt(s);
        if (n < min || n > max) throw new ConfigException(key + "=" + s + ": expected a whole number from " + min + " to " + max);
        return n;
      } catch (NumberFormatException e) {
        throw new ConfigException(key + "=" + s + ": expected a whole number from " + min + " to " + max);
      }
    }

    double decimal(String key, double min, double max) {
      String s = string(key);
      try {
        double d = Double.parseDouble(s);
        if (!(d >= min && d <= max)) throw new ConfigException(key + "=" + s + ": expected a number from " + min + " to " + max);
        return d;
      } catch (NumberFormatException e) {
        throw new ConfigException(key + "=" + s + ": expected a number from " + min + " to " + max);
      }
    }
  }
}
