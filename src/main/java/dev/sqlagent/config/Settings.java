package dev.sqlagent.config;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Every setting of the service, in the sections {@code docs/configuration.md} shows them: the one list
 * {@link AppConfig} accepts (any other {@code SQLAGENT_} key is refused) and reads its defaults from, and the page's
 * table is generated from ({@link ConfigurationPage}).
 */
public final class Settings {

  /** A heading of the page and the settings under it. */
  public record Section(String title, List<Setting> settings) {
    public Section {
      settings = List.copyOf(settings);
    }
  }

  public static final List<Section> SECTIONS = List.of(
      section("Where the settings come from",
          s("SQLAGENT_CONFIG", null, "unset: the environment only",
              "a properties file (`KEY=value` lines) that may set any key below; a key set in the environment wins over "
                  + "the file's")),
      section("The database and the state store",
          s("SQLAGENT_DB_URL", null, "unset: the embedded demo shop",
              "the target: `postgresql://user[:pass]@host:port/db` of the database to ask about, as a read-only role; "
                  + "only ever read (a writable role is refused at start)"),
          s("SQLAGENT_DB_POOLER", "none", null,
              "what stands between sql-agent and the target: `none`, `session` (a pooler in session mode, the same as "
                  + "`none`), or `transaction` for a pooler in transaction mode (PgBouncer, Supavisor, RDS Proxy), where "
                  + "each transaction may use another server connection: sql-agent then keeps no prepared statement or "
                  + "setting from one transaction to the next ([poolers](poolers-and-standbys.md#through-a-connection-pooler))"),
          s("SQLAGENT_SCHEMAS", null, "every readable non-system schema", "comma-separated schemas of the target to offer"),
          s("SQLAGENT_ALLOW_WRITABLE_ROLE", "false", null,
              "`true`: start even when the target role could write (loud warning; the read-only transaction and the "
                  + "gate still apply)"),
          s("SQLAGENT_ACCEPT_EXECUTABLE", null, "unset",
              "comma-separated `schema.name` of functions the agent role may execute that the read-only proof accepts, "
                  + "for a DBA who cannot revoke EXECUTE from PUBLIC: the start goes on if nothing else fails, the gate "
                  + "refuses every statement that reaches them, `/api/health` and `status` say they are guarded by the "
                  + "gate alone; an escape-capable extension's function (dblink's, …) is refused at start "
                  + "([narrow acceptance](read-only.md#when-execute-cannot-be-revoked))"),
          s("SQLAGENT_ALLOW_FUNCTIONS", null, "unset: built-in functions and those of vetted extensions only",
              "comma-separated `schema.name` of user functions a query may call, as SQL writes them (an unquoted part "
                  + "is lower-cased, a `\"quoted\"` one kept); the notes file's `allow_functions` adds to it; an "
                  + "escape-capable function is never allowed ([allowing a user function](read-only.md#allowing-a-user-function))"),
          s("SQLAGENT_STATE_URL", null, "unset: database `sql_agent` of the embedded PostgreSQL",
              "the state store: `postgresql://owner[:pass]@host:port/db` of a database of the service's own (never the "
                  + "target): query log, snapshots, embedding cache, conversations, evaluation runs"),
          s("SQLAGENT_STATE_POOL_SIZE", String.valueOf(dev.sqlagent.state.StateDatabase.DEFAULT_SIZE), null,
              "connections to the state store as its owner, shared by conversations, verified queries, run claims, "
                  + "stored values, the embedding cache, snapshots, evaluation runs, the event journal and health; the "
                  + "query log writes through 2 more, as its INSERT-only role `sql_agent_log`; 1 to 200"),
          s("SQLAGENT_HOME", null, "`~/.sql-agent`",
              "embedded PostgreSQL (demo and state store), generated passwords (`credentials.properties`, mode 0600), "
                  + "local models (`models/`)")),
      section("What the model is told",
          s("SQLAGENT_NOTES", null, "COMMENTs only (the demo: its own notes)",
              "notes file, YAML or JSON ([format](notes-file.md)): table and column descriptions, business terms, "
                  + "conventions, sensitive columns; read once at start"),
          s("SQLAGENT_MODEL_SEES", "results", null,
              "what of the database the model is sent ([data policy](data-policy.md)): `schema` (names, types, "
                  + "comments, notes), `values` (+ stored values of low-cardinality and matched columns), `samples` "
                  + "(+ sample rows), `results` (+ result rows, to word the answer; below it the answer is the plain "
                  + "summary)"),
          s("SQLAGENT_PROMPT_BUDGET", "6000", null,
              "most tokens of schema text in one prompt: the least relevant tables' column lists are shortened to fit; "
                  + "no chosen table is dropped; 500 to 200000"),
          s("SQLAGENT_LLM_CONTEXT_TOKENS", "0", "`0`: no limit but `SQLAGENT_PROMPT_BUDGET`",
              "the model's context in tokens, used when its server does not say (llama.cpp's `/props` and `/v1/models` "
                  + "do, and are read first); the schema text gets 60% of what is left after 2,048 tokens for the "
                  + "rules, the question, two repairs and the reply, the sample rows the rest")),
      section("The model",
          s("SQLAGENT_LLM_BASE_URL", "http://localhost:11434/v1", "`http://localhost:11434/v1` (Ollama)",
              "OpenAI-compatible API base (`.../v1`)"),
          s("SQLAGENT_LLM_MODEL", "qwen2.5-coder:7b", null, "model name"),
          s("SQLAGENT_LLM_API_KEY", null, "unset", "API key; a second for failover may follow a comma"),
          s("SQLAGENT_LLM_MODEL_PATH", null,
              "unset: the first `*.gguf` (by name) under `SQLAGENT_HOME/models`, if any; with none, "
                  + "`SQLAGENT_LLM_BASE_URL`'s default",
              "a GGUF model file the service serves itself, in a child process on loopback "
                  + "([local model](local-model.md)); only with `SQLAGENT_LLM_BASE_URL` unset (both set is refused)"),
          s("SQLAGENT_LLM_TIMEOUT_MS", "60000",
              "`60000`; with a model on loopback: `" + AppConfig.LOCAL_LLM_TIMEOUT_MS + "`",
              "deadline of one model call. A streamed reply still arriving at the deadline goes on while text keeps "
                  + "coming (at least every 10 s); the question's deadline bounds it. A call that asks for n candidates "
                  + "in one reply has n times this deadline. Unset with a model on loopback (`localhost`, `127.*`, "
                  + "`::1`), the longer default applies, since a small model on a CPU reads a long prompt for minutes "
                  + "before its first token ([measured](measurements.md#a-small-local-model-on-spider-dev))"),
          s("SQLAGENT_QUESTION_TIMEOUT_MS", "180000",
              "`180000`; with a model on loopback: `" + AppConfig.LOCAL_QUESTION_TIMEOUT_MS + "`",
              "deadline of one whole question, every model call and query included"),
          s("SQLAGENT_LLM_MAX_CONNECTIONS", "64", null, "connections to the model API at once"),
          s("SQLAGENT_PROMPT_PRICE", "0", null, "USD per million prompt tokens, for cost reporting and [budgets](budgets.md)"),
          s("SQLAGENT_COMPLETION_PRICE", "0", null, "USD per million completion tokens, for cost reporting and [budgets](budgets.md)"),
          s("SQLAGENT_ANSWER_SUMMARY", "model", null,
              "`model`: a second call words the answer (a reply that is JSON, SQL or holds a code fence gives way to "
                  + "the deterministic one); `plain`: deterministic"),
          s("SQLAGENT_CANDIDATES", "1", "`1`; with a model the service serves itself: `" + AppConfig.LOCAL_MODEL_CANDIDATES + "`",
              "SQL candidates per attempt, voted by their results "
                  + "([candidates](evaluation.md#right-more-often-stored-values-empty-aggregates-candidates)): above 1 each "
                  + "runs through the gate and the largest group of equal results wins (tokens and cost grow with it); "
                  + "with 3 or more, a vote with no majority asks back which reading was meant "
                  + "([the desk](the-desk.md)); 1 to 16"),
          s("SQLAGENT_CANDIDATE_TEMPERATURE", "0.7", null,
              "sampling temperature of the candidates when there are several; 0 to 2")),
      section("Queries and their results",
          s("SQLAGENT_ROW_CAP", "200", null, "most rows a query returns"),
          s("SQLAGENT_MAX_PLAN_COST", "1000000", null, "largest planner cost the gate lets run"),
          s("SQLAGENT_STATEMENT_TIMEOUT_MS", "5000", null, "per-query `statement_timeout`"),
          s("SQLAGENT_LOCK_TIMEOUT_MS", "1000", null, "per-query `lock_timeout`"),
          s("SQLAGENT_MAX_RESULT_BYTES", "4194304", "`4194304` (4 MiB)",
              "most bytes of rows one query returns, counted while the rows stream in; above it a repairable "
                  + "`result_too_large` refusal")),
      section("HTTP and who may ask",
          s("SQLAGENT_HTTP_HOST", "127.0.0.1", null, "interface to bind"),
          s("SQLAGENT_HTTP_PORT", "8080", null,
              "HTTP port (`0`: any free port); `serve` checks it can bind there before starting PostgreSQL and the "
                  + "models, and stops at once naming the address when it cannot"),
          s("SQLAGENT_API_TOKEN", null, "unset",
              "bearer token required on `/api`, `/ws`, `/eventbus`, `/mcp` (browsers' WebSockets may pass "
                  + "`?access_token=`); unset: no token, and watching every run is for loopback clients only"),
          s("SQLAGENT_ALLOWED_ORIGIN", null, "the service's own origin",
              "browser origin allowed on `POST /api`, `/ws`, `/eventbus` and `/mcp` (e.g. `https://agent.example`, no "
                  + "path)"),
          s("SQLAGENT_PUBLIC_URL", null, "unset: the scheme and host the request came to",
              "the URL clients reach the service at (e.g. `https://agent.example.com`, a path allowed): names `/mcp` in "
                  + "the sign-on metadata MCP clients read ([MCP sign-in](mcp.md#sign-in-from-an-mcp-client))"),
          s("SQLAGENT_TRUSTED_PROXIES", null, "unset: those headers are ignored",
              "comma-separated addresses or CIDR blocks (IPv4, IPv6) of proxies whose `Forwarded` / `X-Forwarded-*` "
                  + "headers are believed, for per-client limits, origin checks and watching "
                  + "([behind a proxy](users-and-conversations.md#behind-a-proxy-or-load-balancer))"),
          s("SQLAGENT_MAX_BODY_BYTES", "65536", null, "largest request body (413 above; `/api/ask` 32 KiB)"),
          s("SQLAGENT_ASK_PER_CLIENT", "2", null,
              "questions one client may have in flight on `POST /api/ask` (429 above)"),
          s("SQLAGENT_ASK_IN_FLIGHT", "64", null,
              "questions the whole service answers at once (every edge: HTTP, `/ws`, `/eventbus`, MCP); more wait in "
                  + "the queue"),
          s("SQLAGENT_ASK_QUEUE", "128", null,
              "questions that may wait for a slot; a full queue, or a wait past min(10 s, a quarter of the question "
                  + "timeout), is `503` `busy` with `Retry-After`"),
          s("SQLAGENT_HTTP_HEADER_TIMEOUT_MS", "10000", null,
              "a new connection must send a whole request head within this"),
          s("SQLAGENT_HTTP_IDLE_TIMEOUT_MS", "60000", null,
              "a request body must arrive, and a keep-alive connection is closed when unused, within this (a request "
                  + "still being answered is never cut)")),
      section("Users and sign-on",
          s("SQLAGENT_USERS", null, "unset: one optional shared `SQLAGENT_API_TOKEN`",
              "users file, YAML or JSON: per user a token's SHA-256, display name, admin, optional database role, "
                  + "groups and [budgets](budgets.md) "
                  + "([Users and permissions](users-and-conversations.md#users-and-permissions)); cannot be combined "
                  + "with `SQLAGENT_API_TOKEN`"),
          s("SQLAGENT_OIDC_ISSUER", null, "unset: no sign-on",
              "OpenID Connect issuer URL; bearer JWTs it signed name the user on `/api`, `/ws`, `/eventbus`, `/mcp` "
                  + "([sign-on](users-and-conversations.md#signing-in-with-the-companys-sign-on-openid-connect)); "
                  + "cannot be combined with `SQLAGENT_API_TOKEN`"),
          s("SQLAGENT_OIDC_AUDIENCE", null, "`SQLAGENT_OIDC_CLIENT_ID`",
              "comma-separated audiences; a token's `aud` must name one"),
          s("SQLAGENT_OIDC_CLIENT_ID", null, "unset: the page asks for a token",
              "the page's public client at the issuer; set, the page signs in (authorization code + PKCE)"),
          s("SQLAGENT_OIDC_SCOPES", "openid profile", null, "scopes the page's sign-in asks for"),
          s("SQLAGENT_OIDC_CLAIMS", "name=preferred_username,display_name=name", null,
              "claims → user: `name`, `display_name`, `role` (database role) take a claim's text; `admin`, "
                  + "`see_sensitive` are `claim:value` (granted when the claim is or holds the value), e.g. "
                  + "`admin=groups:sql-admins,role=db_role,see_sensitive=groups:pii`; `groups` names the claim listing "
                  + "the user's groups ([budgets](budgets.md))"),
          s("SQLAGENT_OIDC_SETTINGS", null, "none",
              "row rules: session settings set from claims for each user's statements, `setting=claim`, e.g. "
                  + "`app.tenant_id=tenant,app.region=claims.region`; a token without one is refused (403) "
                  + "([row rules](users-and-conversations.md#row-rules-from-the-sign-on))"),
          s("SQLAGENT_OIDC_CLOCK_SKEW_S", "60", null,
              "seconds of clock difference tolerated on `exp` and `nbf` (0 to 3600)"),
          s("SQLAGENT_OIDC_KEYS_REFETCH_S", "10", null,
              "least seconds between two key-set fetches prompted by an unknown key id (rotation)")),
      section("Conversations and verified queries",
          s("SQLAGENT_CONVERSATION_DAYS", "30", null,
              "days a conversation is kept after its last turn (deleted at start and hourly; an expired id is a 404) "
                  + "([conversations](users-and-conversations.md#conversations-and-verified-queries)); 1 to 3650"),
          s("SQLAGENT_CONVERSATION_BUDGET", "1500", null,
              "most tokens of a conversation's earlier turns in a follow-up's prompt: the oldest turns are shortened "
                  + "first; 100 to 100000"),
          // Measured (VerifiedBenchmark): two different questions of the demo's evaluation set came as close as 0.900
          // (monthly revenue with a running total vs with the change from the previous month), so a direct answer
          // needs more than that.
          s("SQLAGENT_VERIFIED_THRESHOLD", "0.91", null,
              "similarity at or above which a verified query answers a question without the model (when it names "
                  + "the same values); 0.5 to 1")),
      section("Exports",
          s("SQLAGENT_EXPORT_MAX_ROWS", "100000", null,
              "most rows one export (CSV or XLSX) streams; past it the file's last line says it was truncated "
                  + "([export](export.md))"),
          s("SQLAGENT_EXPORT_MAX_BYTES", "268435456", "`268435456` (256 MiB)",
              "most bytes of cell data one export streams, counted as JSON; past it the file's last line says it was "
                  + "truncated"),
          s("SQLAGENT_EXPORTS_PER_USER", "2", null,
              "exports one user (without users: one client address) may have running at once; one more gets 429 with "
                  + "`Retry-After` ([export](export.md#how-many-at-once))"),
          s("SQLAGENT_EXPORT_CONNECTIONS", "2", null,
              "connections to the target for exports, beside the questions' own, so exports never take a question's: "
                  + "exports running at once; one more gets 503 `busy` with `Retry-After`"),
          s("SQLAGENT_EXPORT_STALL_MS", "30000", null,
              "longest an export's client may take no bytes; past it the export ends and its connection is closed. A "
                  + "slow but steady reader is never cut ([export](export.md#a-slow-client))")),
      section("The query log and health",
          s("SQLAGENT_LOG_BUFFER_ROWS", "5000", null,
              "query-log rows held in memory while the database is away; beyond that a row is dropped, counted and "
                  + "reported"),
          s("SQLAGENT_LOG_RETRY_MAX_MS", "30000", null,
              "longest wait between query-log write retries (backoff from 250 ms)"),
          s("SQLAGENT_HEALTH_TIMEOUT_MS", "2000", null,
              "deadline of each readiness check; keep it below the probe's timeout and period")),
      section("Traces and logs",
          s("SQLAGENT_OTLP_ENDPOINT", null, "unset: no tracing at all",
              "an OpenTelemetry collector's OTLP/HTTP address (`http://otel-collector:4318`): one trace per question, "
                  + "with a span per graph node, model call and SQL statement (its shape: literals replaced by `?`) "
                  + "([traces](observability.md#traces))"),
          s("SQLAGENT_OTLP_PROMPTS", "false", null,
              "`true`: a model call's span also carries its prompt and reply (users' words and schema text: off unless "
                  + "your trace store may hold them)"),
          s("SQLAGENT_LOG_FORMAT", "text", null,
              "`text`: human lines; `json`: one JSON object a line with the run's `run_id`, `trace_id`, `user`, `node` "
                  + "([structured logs](observability.md#structured-logs))")),
      section("Stopping, and several nodes",
          s("SQLAGENT_DRAIN_SECONDS", "20", null,
              "on SIGTERM: readiness turns 503 and new questions are refused (`503` `stopping`, `Retry-After`) at "
                  + "once; questions in flight get this long to finish, then are cancelled (answered as cancelled, "
                  + "logged) before the process exits "
                  + "([Deploying](deployment.md#stopping-and-rolling-restarts)); 0 to 3600"),
          s("SQLAGENT_CLUSTER", "false", null,
              "`true`: join other sql-agent nodes on a clustered event bus ([several instances](several-instances.md)); "
                  + "needs `SQLAGENT_STATE_URL` and `SQLAGENT_DB_URL`; the other `SQLAGENT_CLUSTER_*` settings are "
                  + "refused without it"),
          s("SQLAGENT_CLUSTER_HOST", "127.0.0.1", null,
              "the address this node binds for the cluster (Hazelcast; the event bus takes a free port on the same "
                  + "host and announces it): one the other nodes reach"),
          s("SQLAGENT_CLUSTER_PORT", "5701", null, "this node's Hazelcast port, 1 to 65535"),
          s("SQLAGENT_CLUSTER_MEMBERS", null, "this node only",
              "comma-separated `host:port` of members to join over TCP/IP (never multicast)"),
          s("SQLAGENT_CLUSTER_NAME", "sql-agent", null,
              "the cluster's name: nodes join only a cluster of the same name (letters, digits, `.`, `-`, `_`; at "
                  + "most 64)"),
          s("SQLAGENT_CLUSTER_DNS", null, "unset",
              "instead of `SQLAGENT_CLUSTER_MEMBERS`: a DNS name whose addresses are the members, each on "
                  + "`SQLAGENT_CLUSTER_PORT` (Hazelcast's Kubernetes discovery, DNS lookup mode: a headless Service's "
                  + "name, e.g. `sql-agent-cluster.default.svc.cluster.local`) "
                  + "([Deploying](deployment.md#kubernetes-finding-the-other-pods))")));

  private static final Map<String, Setting> BY_KEY = byKey();

  private Settings() {}

  /** Every setting's key, in the page's order. */
  public static Set<String> keys() {
    return BY_KEY.keySet();
  }

  public static Optional<Setting> find(String key) {
    return Optional.ofNullable(BY_KEY.get(key));
  }

  /**
   * The value an unset {@code key} reads as (null: none).
   *
   * @throws IllegalArgumentException when {@code key} is not declared here: every setting read is declared
   */
  public static String fallback(String key) {
    Setting s = BY_KEY.get(key);
    if (s == null) throw new IllegalArgumentException(key + " is read but not declared in Settings");
    return s.fallback();
  }

  private static Section section(String title, Setting... settings) {
    return new Section(title, Arrays.asList(settings));
  }

  /** A setting; with no {@code shown} default, the page shows the fallback in code, or "unset". */
  private static Setting s(String key, String fallback, String shown, String meaning) {
    return new Setting(key, fallback, shown != null ? shown : fallback != null ? "`" + fallback + "`" : "unset", meaning);
  }

  private static Map<String, Setting> byKey() {
    Map<String, Setting> m = new LinkedHashMap<>();
    for (Section section : SECTIONS) {
      for (Setting s : section.settings()) {
        if (m.put(s.key(), s) != null) throw new IllegalStateException(s.key() + " is declared twice");
      }
    }
    return java.util.Collections.unmodifiableMap(m);
  }
}
