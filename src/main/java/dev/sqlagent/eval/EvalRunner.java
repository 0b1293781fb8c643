package dev.sqlagent.eval;

import dev.sqlagent.bus.Addresses;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Drives an evaluation over the event bus: asks the agent every question ({@link Addresses#ASK}, with
 * {@code "source": "eval"} so the query log skips it, and the mode), in each mode, {@code runs} times;
 * saves every raw answer as it arrives, grades it by execution, and writes the verdicts and the summary
 * into a new run directory. {@link #regrade} re-scores a saved run from its answers without asking anyone.
 *
 * <p>Questions are asked one at a time, modes back to back (agent, then baseline) on the same model.
 */
public final class EvalRunner {

  /**
   * @param modes "agent" and/or "baseline", in the order to run them
   * @param runs how many times each question is asked per mode (at least 1)
   * @param injectFaults ask the agent to break its first SQL of each answerable question
   * @param outDir the root under which run directories are created
   * @param questionsSource where the questions came from (recorded in the run)
   * @param askTimeoutMs how long one question may take before it counts as an infrastructure timeout
   * @param askAddress the agent's address (normally {@link Addresses#ASK})
   * @param progress receives one line per graded sample
   */
  public record Options(List<String> modes, int runs, boolean injectFaults, Path outDir, String questionsSource,
      long askTimeoutMs, String askAddress, Consumer<String> progress) {

    public Options {
      modes = List.copyOf(modes);
      if (modes.isEmpty()) throw new IllegalArgumentException("at least one mode");
      for (String m : modes) {
        if (!m.equals("agent") && !m.equals("baseline")) throw new IllegalArgumentException("mode must be agent or baseline: " + m);
      }
      if (runs < 1) throw new IllegalArgumentException("runs must be at least 1");
      Objects.requireNonNull(outDir, "outDir");
      if (askAddress == null) askAddress = Addresses.ASK;
      if (progress == null) progress = line -> { };
    }

    /** Agent mode once, no faults, the default timeout. */
    public static Options of(Path outDir) {
      return new Options(List.of("agent"), 1, false, outDir, QuestionSet.SHIPPED, 210_000, Addresses.ASK, null);
    }

    public Options withModes(List<String> m) {
      return new Options(m, runs, injectFaults, outDir, questionsSource, askTimeoutMs, askAddress, progress);
    }

    public Options withRuns(int n) {
      return new Options(modes, n, injectFaults, outDir, questionsSource, askTimeoutMs, askAddress, progress);
    }

    public Options withInjectFaults(boolean f) {
      return new Options(modes, runs, f, outDir, questionsSource, askTimeoutMs, askAddress, progress);
    }

    public Options withQuestionsSource(String s) {
      return new Options(modes, runs, injectFaults, outDir, s, askTimeoutMs, askAddress, progress);
    }

    public Options withAskTimeoutMs(long ms) {
      return new Options(modes, runs, injectFaults, outDir, questionsSource, ms, askAddress, progress);
    }

    public Options withAskAddress(String a) {
      return new Options(modes, runs, injectFaults, outDir, questionsSource, askTimeoutMs, a, progress);
    }

    public Options withProgress(Consumer<String> p) {
      return new Options(modes, runs, injectFaults, outDir, questionsSource, askTimeoutMs, askAddress, p);
    }
  }

  /** No agent answers on the ask address: the run cannot mean anything, so it stops. */
  public static final class NoAgentException extends RuntimeException {
    public NoAgentException(String message) {
      super(message);
    }
  }

  private final Vertx vertx;
  private final Grader grader;
  private final Options options;
  private final RunStore store;

  public EvalRunner(Vertx vertx, Grader.SqlRunner sql, Options options) {
    this.vertx = vertx;
    this.grader = new Grader(sql);
    this.options = options;
    this.store = new RunStore(options.outDir());
  }

  private record Task(Question question, String mode, int sample) {}

  /** Asks, grades and saves every question; completes with the saved run. */
  public Future<EvalRun> run(List<Question> questions) {
    List<Task> tasks = new ArrayList<>();
    for (String mode : options.modes()) {
      for (int r = 1; r <= options.runs(); r++) {
        for (Question q : questions) tasks.add(new Task(q, mode, r));
      }
    }
    JsonObject meta = new JsonObject()
        .put("started_at", Instant.now().toString())
        .put("questions_file", options.questionsSource())
        .put("questions", questions.size())
        .put("modes", new JsonArray(options.modes()))
        .put("runs", options.runs())
        .put("inject_faults", options.injectFaults());
    return blocking(() -> {
      grader.prepare(questions);              // a broken gold query stops the run before the model is asked
      Path dir = store.create(null);
      meta.put("run_id", dir.getFileName().toString());
      RunStore.writeLines(dir.resolve(RunStore.QUESTIONS), questions.stream().map(Question::toJson).toList());
      RunStore.writeJson(dir.resolve(RunStore.RUN), meta);
      return dir;
    }).compose(dir -> {
      List<Verdict> verdicts = new ArrayList<>();
      return loop(tasks, 0, dir, verdicts)
          .compose(v -> blocking(() -> finish(dir, meta, verdicts)))
          .recover(err -> blocking(() -> {
            removeIfNothingAsked(dir);
            throw err instanceof Exception e ? e : new RuntimeException(err);
          }));
    });
  }

  /** A run that stopped before any answer came back leaves nothing behind (answers are kept otherwise). */
  private static void removeIfNothingAsked(Path dir) throws java.io.IOException {
    if (java.nio.file.Files.exists(dir.resolve(RunStore.ANSWERS))) return;
    java.nio.file.Files.deleteIfExists(dir.resolve(RunStore.QUESTIONS));
    java.nio.file.Files.deleteIfExists(dir.resolve(RunStore.RUN));
    java.nio.file.Files.deleteIfExists(dir);
  }

  private Future<Void> loop(List<Task> tasks, int i, Path dir, List<Verdict> verdicts) {
    if (i == tasks.size()) return Future.succeededFuture();
    Task t = tasks.get(i);
    return ask(t).compose(sample -> blocking(() -> {
      if (sample.failure() != null && "no_agent".equals(sample.failure().getString("kind"))) {
        throw new NoAgentException("no agent is listening on " + options.askAddress()
            + ": deploy the service's verticles (MainVerticle) before evaluating");
      }
      RunStore.appendLine(dir.resolve(RunStore.ANSWERS), sample.toJson());
      Verdict v = grader.grade(t.question(), sample);
      RunStore.appendLine(dir.resolve(RunStore.VERDICTS), v.toJson());
      verdicts.add(v);
      options.progress().accept(progressLine(i + 1, tasks.size(), v));
      return v;
    })).compose(v -> loop(tasks, i + 1, dir, verdicts));
  }

  private Future<Sample> ask(Task t) {
    boolean inject = options.injectFaults() && t.question().answerable();
    JsonObject request = new JsonObject()
        .put("question", t.question().question())
        .put("mode", t.mode())
        .put("source", "eval");
    if (inject) request.put("inject_fault", true).put("fault_key", t.question().id());
    long t0 = System.nanoTime();
    return vertx.eventBus().request(options.askAddress(), request,
            new DeliveryOptions().setSendTimeout(options.askTimeoutMs()))
        .map(msg -> {
          long wall = (System.nanoTime() - t0) / 1_000_000;
          JsonObject answer = asJson(msg.body());
          if (answer == null) {
            return new Sample(t.question().id(), t.mode(), t.sample(), inject, null, new JsonObject()
                .put("kind", "agent_error").put("message", "the reply is not a JSON object"), wall);
          }
          return new Sample(t.question().id(), t.mode(), t.sample(), inject, answer, null, wall);
        })
        .recover(err -> Future.succeededFuture(new Sample(t.question().id(), t.mode(), t.sample(), inject, null,
            failure(err), (System.nanoTime() - t0) / 1_000_000)));
  }

  private static JsonObject asJson(Object body) {
    if (body instanceof JsonObject o) return o;
    if (body instanceof String s) {
      try {
        return new JsonObject(s);
      } catch (RuntimeException e) {
        return null;
      }
    }
    return null;
  }

  /** How an ask failed on the bus; the agent's structured error (error_type) is kept when it sent one. */
  static JsonObject failure(Throwable err) {
    JsonObject f = new JsonObject().put("message", String.valueOf(err.getMessage()));
    if (err instanceof ReplyException re) {
      f.put("code", re.failureCode());
      if (re.failureType() == ReplyFailure.TIMEOUT) return f.put("kind", "timeout");
      if (re.failureType() == ReplyFailure.NO_HANDLERS) return f.put("kind", "no_agent");
      JsonObject body = asJson(re.getMessage());
      if (body != null) {
        f.put("error_type", body.getString("error_type"));
        if (body.getString("message") != null) f.put("message", body.getString("message"));
      }
    }
    return f.put("kind", "agent_error");
  }

  private EvalRun finish(Path dir, JsonObject meta, List<Verdict> verdicts) {
    JsonObject summary = Summary.compute(verdicts, meta.copy().put("finished_at", Instant.now().toString()));
    RunStore.writeJson(dir.resolve(RunStore.SUMMARY), summary);
    return new EvalRun(dir, summary, List.copyOf(verdicts));
  }

  /**
   * Re-scores a saved run (a directory, or a run name under the output root) from its saved answers, with
   * the given questions (or, when null, the questions saved with the run); writes a new run directory
   * ({@code <time>-regrade}) that records where it came from. The model is not called; the database is
   * (gold SQL, truncated answers re-run).
   */
  public Future<EvalRun> regrade(String run, List<Question> questions) {
    return blocking(() -> {
      Path from = store.resolve(run);
      List<Question> qs = questions != null ? questions : QuestionSet.load(from.resolve(RunStore.QUESTIONS));
      Map<String, Question> byId = new HashMap<>();
      qs.forEach(q -> byId.put(q.id(), q));
      List<JsonObject> answers = RunStore.readLines(from.resolve(RunStore.ANSWERS));
      grader.prepare(qs);
      List<Verdict> verdicts = new ArrayList<>();
      for (int i = 0; i < answers.size(); i++) {
        Sample s = Sample.fromJson(answers.get(i));
        Question q = byId.get(s.questionId());
        if (q == null) {
          throw new IllegalArgumentException(from.resolve(RunStore.ANSWERS) + " line " + (i + 1) + ": question \""
              + s.questionId() + "\" is not in the question set used to regrade");
        }
        verdicts.add(grader.grade(q, s));
      }
      Path dir = store.create("-regrade");
      JsonObject old = java.nio.file.Files.isRegularFile(from.resolve(RunStore.RUN))
          ? RunStore.readJson(from.resolve(RunStore.RUN)) : new JsonObject();
      JsonObject meta = old.copy()
          .put("run_id", dir.getFileName().toString())
          .put("regraded_from", from.getFileName().toString())
          .put("regraded_at", Instant.now().toString())
          .put("questions", qs.size());
      if (questions != null) meta.put("questions_file", options.questionsSource());
      RunStore.writeLines(dir.resolve(RunStore.QUESTIONS), qs.stream().map(Question::toJson).toList());
      RunStore.writeLines(dir.resolve(RunStore.ANSWERS), answers);
      RunStore.writeLines(dir.resolve(RunStore.VERDICTS), verdicts.stream().map(Verdict::toJson).toList());
      RunStore.writeJson(dir.resolve(RunStore.RUN), meta);
      JsonObject summary = Summary.compute(verdicts, meta);
      RunStore.writeJson(dir.resolve(RunStore.SUMMARY), summary);
      return new EvalRun(dir, summary, List.copyOf(verdicts));
    });
  }

  private <T> Future<T> blocking(java.util.concurrent.Callable<T> work) {
    return vertx.executeBlocking(work, false);
  }

  private static String progressLine(int n, int of, Verdict v) {
    StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "[%d/%d] %-8s %-5s #%d  %-13s %s",
        n, of, v.mode(), v.questionId(), v.sample(), v.outcome().wireName(), v.reason()));
    if (v.attempts() > 0) b.append(", ").append(v.attempts()).append(v.attempts() == 1 ? " attempt" : " attempts");
    if (v.faultType() != null) b.append(", fault ").append(v.faultType());
    return b.append(", ").append(v.latencyMs()).append(" ms").toString();
  }
}
