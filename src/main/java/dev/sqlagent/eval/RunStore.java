package dev.sqlagent.eval;

import dev.sqlagent.state.StateStore;
import io.vertx.core.json.JsonObject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Saved runs, in the state store: a run is named by its start time, never overwritten (a clash gets a
 * counter). It holds {@code run.json} (what was run), {@code questions.jsonl} (the questions as asked),
 * {@code answers.jsonl} (every raw answer, enough to re-grade without the model), {@code verdicts.jsonl}
 * and {@code summary.json}: the JSON files one row each in {@code eval_runs}, the JSON-lines files one row
 * per line in {@code eval_run_lines}, appended as the run goes. Blocking JDBC as the store's owner: call it
 * off the event loop. Failures are {@link StoreException}s naming the store.
 */
public final class RunStore {

  public static final String RUN = "run.json";
  public static final String QUESTIONS = "questions.jsonl";
  public static final String ANSWERS = "answers.jsonl";
  public static final String VERDICTS = "verdicts.jsonl";
  public static final String SUMMARY = "summary.json";

  private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS");
  /** Run names: a timestamp, optionally a suffix such as -regrade, optionally a clash counter. */
  public static final Pattern RUN_NAME = Pattern.compile("\\d{8}-\\d{6}-\\d{3}[-a-z0-9]*");
  /** {@link #RUN_NAME} as a PostgreSQL regular expression. */
  static final String RUN_NAME_SQL = "^[0-9]{8}-[0-9]{6}-[0-9]{3}[-a-z0-9]*$";
  /** The newest run that has a summary (run, content); the blocking and the reactive reader share it. */
  public static final String LATEST_SUMMARY_SQL = "SELECT run, content FROM eval_runs WHERE file = '" + SUMMARY
      + "' AND run ~ '" + RUN_NAME_SQL + "' ORDER BY run DESC LIMIT 1";

  /** The state store could not be read or written. */
  public static final class StoreException extends RuntimeException {
    public StoreException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private final StateStore state;

  public RunStore(StateStore state) {
    this.state = state;
  }

  /** Where runs are saved, as messages name it. */
  public String where() {
    return "the state store " + state.owner();
  }

  /**
   * Saves a new run named by the current time (plus {@code suffix}), with {@code meta} as its run.json
   * ({@code run_id} is set in it); the name is the first not yet saved and not {@code alsoTaken}.
   */
  public String create(String suffix, JsonObject meta, Predicate<String> alsoTaken) {
    String base = LocalDateTime.now().format(STAMP) + (suffix == null ? "" : suffix);
    return call("create a run", c -> {
      try (PreparedStatement ps = c.prepareStatement(
          "INSERT INTO eval_runs (run, file, content) VALUES (?, ?, ?) ON CONFLICT DO NOTHING")) {
        for (int n = 1; ; n++) {
          String name = n == 1 ? base : base + "-" + n;
          if (alsoTaken.test(name)) continue;
          meta.put("run_id", name);
          ps.setString(1, name);
          ps.setString(2, RUN);
          ps.setString(3, meta.encodePrettily());
          if (ps.executeUpdate() == 1) return name;
          // another run started in the same millisecond: take the next name
        }
      }
    });
  }

  /** Writes (or replaces) one JSON file of a run. */
  public void writeJson(String run, String file, JsonObject o) {
    call("write " + file + " of run " + run, c -> {
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO eval_runs (run, file, content) VALUES (?, ?, ?) "
          + "ON CONFLICT (run, file) DO UPDATE SET content = EXCLUDED.content, written_at = now()")) {
        ps.setString(1, run);
        ps.setString(2, file);
        ps.setString(3, o.encodePrettily());
        return ps.executeUpdate();
      }
    });
  }

  /** Writes (or replaces) one JSON-lines file of a run, in one transaction. */
  public void writeLines(String run, String file, List<JsonObject> lines) {
    call("write " + file + " of run " + run, c -> {
      c.setAutoCommit(false);
      try (PreparedStatement del = c.prepareStatement("DELETE FROM eval_run_lines WHERE run = ? AND file = ?");
           PreparedStatement ins = c.prepareStatement(
               "INSERT INTO eval_run_lines (run, file, line, content) VALUES (?, ?, ?, ?)")) {
        del.setString(1, run);
        del.setString(2, file);
        del.executeUpdate();
        for (int i = 0; i < lines.size(); i++) {
          ins.setString(1, run);
          ins.setString(2, file);
          ins.setInt(3, i + 1);
          ins.setString(4, lines.get(i).encode());
          ins.addBatch();
        }
        if (!lines.isEmpty()) ins.executeBatch();
        c.commit();
        return null;
      }
    });
  }

  /** Appends one line to each of the given JSON-lines files of a run, all or none. */
  public void append(String run, Map<String, JsonObject> lineByFile) {
    call("append to run " + run, c -> {
      c.setAutoCommit(false);
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO eval_run_lines (run, file, line, content) "
          + "SELECT ?, ?, coalesce(max(line), 0) + 1, ? FROM eval_run_lines WHERE run = ? AND file = ?")) {
        for (Map.Entry<String, JsonObject> e : lineByFile.entrySet()) {
          ps.setString(1, run);
          ps.setString(2, e.getKey());
          ps.setString(3, e.getValue().encode());
          ps.setString(4, run);
          ps.setString(5, e.getKey());
          ps.executeUpdate();
        }
        c.commit();
        return null;
      }
    });
  }

  /** One JSON file of a run, if saved. */
  public Optional<JsonObject> readJson(String run, String file) {
    return call("read " + file + " of run " + run, c -> {
      try (PreparedStatement ps = c.prepareStatement("SELECT content FROM eval_runs WHERE run = ? AND file = ?")) {
        ps.setString(1, run);
        ps.setString(2, file);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) return Optional.<JsonObject>empty();
          try {
            return Optional.of(new JsonObject(rs.getString(1)));
          } catch (RuntimeException e) {
            throw new IllegalArgumentException(describe(run, file) + ": not a JSON object");
          }
        }
      }
    });
  }

  /** The lines of one JSON-lines file of a run, in order (empty when it has none). */
  public List<JsonObject> readLines(String run, String file) {
    return call("read " + file + " of run " + run, c -> {
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT line, content FROM eval_run_lines WHERE run = ? AND file = ? ORDER BY line")) {
        ps.setString(1, run);
        ps.setString(2, file);
        List<JsonObject> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            try {
              out.add(new JsonObject(rs.getString(2)));
            } catch (RuntimeException e) {
              throw new IllegalArgumentException(describe(run, file) + " line " + rs.getInt(1) + ": not a JSON object");
            }
          }
        }
        return out;
      }
    });
  }

  /** Whether the run has at least one line of {@code file}. */
  public boolean hasLines(String run, String file) {
    return call("read run " + run, c -> {
      try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM eval_run_lines WHERE run = ? AND file = ? LIMIT 1")) {
        ps.setString(1, run);
        ps.setString(2, file);
        try (ResultSet rs = ps.executeQuery()) {
          return rs.next();
        }
      }
    });
  }

  /** Names of the saved runs, newest first. */
  public List<String> names() {
    return call("list the saved runs", c -> {
      try (PreparedStatement ps = c.prepareStatement("SELECT DISTINCT run FROM eval_runs WHERE run ~ '" + RUN_NAME_SQL
          + "' ORDER BY run DESC");
           ResultSet rs = ps.executeQuery()) {
        List<String> out = new ArrayList<>();
        while (rs.next()) out.add(rs.getString(1));
        return out;
      }
    });
  }

  /** The newest run's summary (runs still in progress have none). */
  public Optional<JsonObject> latestSummary() {
    return call("read the latest summary", c -> {
      try (PreparedStatement ps = c.prepareStatement(LATEST_SUMMARY_SQL); ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(new JsonObject(rs.getString(2))) : Optional.<JsonObject>empty();
      }
    });
  }

  /** Removes every file of a run. */
  public void delete(String run) {
    call("delete run " + run, c -> {
      c.setAutoCommit(false);
      for (String table : List.of("eval_run_lines", "eval_runs")) {
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table + " WHERE run = ?")) {
          ps.setString(1, run);
          ps.executeUpdate();
        }
      }
      c.commit();
      return null;
    });
  }

  /** How messages name a file of a saved run. */
  public String describe(String run, String file) {
    return file + " of saved run \"" + run + "\" in " + where();
  }

  /** "a, b, c" (the newest {@code max}), or "none". */
  public static String list(List<String> names, int max) {
    if (names.isEmpty()) return "none";
    if (names.size() <= max) return String.join(", ", names);
    return String.join(", ", names.subList(0, max)) + " and " + (names.size() - max) + " more";
  }

  private interface Work<T> {
    T apply(Connection c) throws SQLException;
  }

  private <T> T call(String what, Work<T> work) {
    try (Connection c = state.ownerConnection()) {
      return work.apply(c);
    } catch (SQLException e) {
      throw new StoreException("cannot " + what + " in " + where() + ": " + e.getMessage(), e);
    }
  }
}
