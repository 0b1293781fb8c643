package dev.sqlagent.eval;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusError;
import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.contract.AgentClient;
import dev.sqlagent.contract.AskRequest;
import dev.sqlagent.contract.RunOptions;
import dev.sqlagent.intake.Intake;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Drives an evaluation over the event bus: asks the agent every question ({@link Addresses#ASK}, with
 * {@code "source": "eval"} so the query log skips it, {@code RunOptions.evaluation} and the mode), in each mode, {@code runs} times;
 * saves every raw answer as it arrives, grades it by execution, and saves the verdicts and the summary as a
 * new run in the state store ({@link RunStore}), also exported as files when the options name a directory.
 * {@link #regrade} re-scores a saved run from its answers without asking anyone.
 *
 * <p>Questions are asked one at a time, modes back to back (agent, then baseline) on the same model.
 */
public final class EvalRunner {

  /**
   * @param modes "agent" and/or "baseline", in the order to run them
   * @param runs how many times each question is asked per mode (at least 1)
   * @param injectFaults ask the agent to break its first SQL of each answerable question
   * @param exportDir also write each run's files into a new directory under this one (null: the state store only)
   * @param questionsSource where the questions came from (recorded in the run)
   * @param askTimeoutMs how long one question may take before it counts as an infrastructure timeout
   * @param askAddress the agent's address (normally {@link Addresses#ASK})
   * @param progress receives one line per graded sample
   * @param candidates the agent is run once with each of these SQL candidate counts (1: the plain loop); its
   *     samples are labelled {@code agent} for 1 and {@code agent@n} for n, so the summary compares them
   */
  public record Options(List<String> modes, int runs, boolean injectFaults, Path exportDir, String questionsSource,
      long askTimeoutMs, String askAddress, Consumer<String> progress, List<Integer> candidates) {

    public Options(List<String> modes, int runs, boolean injectFaults, Path exportDir, String questionsSource,
        long askTimeoutMs, String askAddress, Consumer<String> progress) {
      this(modes, runs, injectFaults, exportDir, questionsSource, askTimeoutMs, askAddress, progress, List.of(1));
    }

    public Options {
      modes = List.copyOf(modes);
      if (modes.isEmpty()) throw new IllegalArgumentException("at least one mode");
      for (String m : modes) {
        if (!m.equals("agent") && !m.equals("baseline")) throw new IllegalArgumentException("mode must be agent or baseline: " + m);
      }
      if (runs < 1) throw new IllegalArgumentException("runs must be at least 1");
      if (askAddress == null) askAddress = Addresses.ASK;
      if (progress == null) progress = line -> { };
      candidates = candidates == null || candidates.isEmpty() ? List.of(1) : List.copyOf(new java.util.LinkedHashSet<>(candidates));
      for (int n : candidates) {
        if (n < 1 || n > 16) throw new IllegalArgumentException("candidates must be from 1 to 16: " + n);
      }
    }

    /** Agent mode once, no faults, the default timeout, saved in the state store only. */
    public static Options of() {
      return new Options(List.of("agent"), 1, false, null, QuestionSet.SHIPPED, 210_000, Addresses.ASK, null);
    }

    public Options withExportDir(Path dir) {
      return new Options(modes, runs, injectFaults, dir, questionsSource, askTimeoutMs, askAddress, progress, candidates);
    }

    public Options withModes(List<String> m) {
      return new Options(m, runs, injectFaults, exportDir, questionsSource, askTimeoutMs, askAddress, progress, candidates);
    }

    public Options withRuns(int n) {
      return new Options(modes, n, injectFaults, exportDir, questionsSource, askTimeoutMs, askAddress, progress, candidates);
    }

    public Options withInjectFaults(boolean f) {
      return new Options(modes, runs, f, exportDir, questionsSource, askTimeoutMs, askAddress, progress, candidates);
    }

    public Options withQuestionsSource(String s) {
      return new Options(modes, runs, injectFaults, exportDir, s, askTimeoutMs, askAddress, progress, candidates);
    }

    public Options withAskTimeoutMs(long ms) {
      return new Options(modes, runs, injectFaults, exportDir, questionsSource, ms, askAddress, progress, candidates);
    }

    public Options withAskAddress(String a) {
      return new Options(modes, runs, injectFaults, exportDir, questionsSource, askTimeoutMs, a, progress, candidates);
    }

    public Options withCandidates(List<Integer> n) {
      return new Options(modes, runs, injectFaults, exportDir, questionsSource, askTimeoutMs, askAddress, progress, n);
    }

    public Options withProgress(Consumer<String> p) {
      return new Options(modes, runs, injectFaults, exportDir, questionsSource, askTimeoutMs, askAddress, p, candidates);
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
  private final Intake intake;

  /** @param sql the gate's grading mode ({@link GradingGate}): gold SQL and truncated answers run through it */
  public EvalRunner(Vertx vertx, Grader.SqlRunner sql, RunStore store, Options options) {
    this.vertx = vertx;
    this.grader = new Grader(sql, vertx);
    this.options = options;
    this.store = Objects.requireNonNull(store, "store");
    this.intake = new Intake(new AgentClient(vertx, options.askTimeoutMs(), options.askAddress()));
  }

  /** Where one run is being written: its rows in the state store and, when exported, its directory. */
  private final class Saving {
    final String id;
    final Path dir;

    Saving(String id, Path dir) {
      this.id = id;
      this.dir = dir;
    }

    void json(String file, JsonObject o) {
      store.writeJson(id, file, o);
      if (dir != null) RunFiles.writeJson(dir.resolve(file), o);
    }

    void lines(String file, List<JsonObject> lines) {
      store.writeLines(id, file, lines);
      if (dir != null) RunFiles.writeLines(dir.resolve(file), lines);
    }

    /** One line appended to each file, in the store all or none. */
    void append(Map<String, JsonObject> lineByFile) {
      store.append(id, lineByFile);
      if (dir != null) lineByFile.forEach((file, line) -> RunFiles.appendLine(dir.resolve(file), line));
    }

    /** A run that stopped before any answer came back leaves nothing behind (answers are kept otherwise). */
    void removeIfNothingAsked() throws java.io.IOException {
      if (!store.hasLines(id, RunStore.ANSWERS)) store.delete(id);
      if (dir != null) RunFiles.removeIfNothingAsked(dir);
    }
  }

  /** Saves a new run (its run.json is {@code meta}, which gets the run's name as run_id), exported if asked. */
  private Saving open(String suffix, JsonObject meta) {
    Path root = options.exportDir();
    String id = store.create(suffix, meta, name -> root != null && java.nio.file.Files.exists(root.resolve(name)));
    Path dir = null;
    if (root != null) {
      try {
        dir = RunFiles.create(root, id);
        RunFiles.writeJson(dir.resolve(RunStore.RUN), meta);
      } catch (RuntimeException e) {
        store.delete(id);
        throw e;
      }
    }
    return new Saving(id, dir);
  }

  /** One ask: {@code label} names the sample's column in the summary ({@code agent@3} for three candidates). */
  private record Task(Question question, String mode, int sample, int candidates, String label) {}

  /** {@code agent} with one candidate, {@code agent@n} with n. */
  static String label(String mode, int candidates) {
    return candidates == 1 ? mode : mode + "@" + candidates;
  }

  /** Asks, grades and saves every question; completes with the saved run. */
  public Future<EvalRun> run(List<Question> questions) {
    List<Task> tasks = new ArrayList<>();
    for (String mode : options.modes()) {
      // Candidates are the agent's: the single-shot baseline is asked once.
      for (int n : mode.equals("agent") ? options.candidates() : List.of(1)) {
        for (int r = 1; r <= options.runs(); r++) {
          for (Question q : questions) tasks.add(new Task(q, mode, r, n, label(mode, n)));
        }
      }
    }
    JsonObject meta = new JsonObject()
        .put("started_at", Instant.now().toString())
        .put("questions_file", options.questionsSource())
        .put("questions", questions.size())
        .put("modes", new JsonArray(options.modes()))
        .put("runs", options.runs())
        .put("inject_faults", options.injectFaults())
        .put("candidates", new JsonArray(options.candidates()));
    // A broken gold query stops the run before the model is asked.
    return grader.prepare(questions).compose(ready -> blocking(() -> {
      Saving out = open(null, meta);
      out.lines(RunStore.QUESTIONS, questions.stream().map(Question::toJson).toList());
      return out;
    })).compose(out -> {
      List<Verdict> verdicts = new ArrayList<>();
      List<Sample> samples = new ArrayList<>();
      return loop(tasks, 0, out, verdicts, samples)
          .compose(v -> ClarificationSummary.gradeReadings(grader,
              tasks.stream().map(Task::question).limit(samples.size()).toList(), samples))
          .compose(readings -> blocking(() -> finish(out, meta, questions, verdicts, samples, readings)))
          .recover(err -> blocking(() -> {
            try {
              out.removeIfNothingAsked();
            } catch (Exception cleanup) {
              err.addSuppressed(cleanup);
            }
            throw err instanceof Exception e ? e : new RuntimeException(err);
          }));
    });
  }

  private Future<Void> loop(List<Task> tasks, int i, Saving out, List<Verdict> verdicts, List<Sample> samples) {
    if (i == tasks.size()) return Future.succeededFuture();
    Task t = tasks.get(i);
    return ask(t).compose(sample -> {
      if (sample.failure() != null && "no_agent".equals(sample.failure().getString("kind"))) {
        return Future.<Verdict>failedFuture(new NoAgentException("no agent is listening on " + options.askAddress()
            + ": deploy the service's verticles (MainVerticle) before evaluating"));
      }
      return grader.grade(t.question(), sample)
          .recover(err -> blocking(() -> {
            out.append(Map.of(RunStore.ANSWERS, sample.toJson()));   // the answer is kept even when grading fails
            throw err instanceof Exception e ? e : new RuntimeException(err);
          }))
          .compose(v -> blocking(() -> record(sample, v, i, tasks.size(), out, verdicts, samples)));
    }).compose(v -> loop(tasks, i + 1, out, verdicts, samples));
  }

  private Verdict record(Sample sample, Verdict v, int i, int of, Saving out, List<Verdict> verdicts,
                         List<Sample> samples) {
    Map<String, JsonObject> lines = new LinkedHashMap<>();
    lines.put(RunStore.ANSWERS, sample.toJson());
    lines.put(RunStore.VERDICTS, v.toJson());
    out.append(lines);
    verdicts.add(v);
    samples.add(sample);
    options.progress().accept(progressLine(i + 1, of, v));
    return v;
  }

  private Future<Sample> ask(Task t) {
    boolean inject = options.injectFaults() && t.question().answerable();
    // Evaluation measures the model: no verified queries, no conversation, and it paces itself.
    AskRequest request = new AskRequest(t.question().question(), t.mode(), "eval", null, null, null,
        RunOptions.evaluation(t.candidates() > 1 ? t.candidates() : null, inject ? t.question().id() : null));
    long t0 = System.nanoTime();
    return intake.ask(request, null)
        .map(answer -> new Sample(t.question().id(), t.label(), t.sample(), inject, answer.toJson(), null,
            (System.nanoTime() - t0) / 1_000_000))
        .recover(err -> Future.succeededFuture(new Sample(t.question().id(), t.label(), t.sample(), inject, null,
            failure(err), (System.nanoTime() - t0) / 1_000_000)));
  }

  /** How an ask failed: no reply in time, no agent listening, or the agent's own failure with its type. */
  static JsonObject failure(Throwable err) {
    BusError e = BusError.of(err, AgentClient.AGENT);
    JsonObject f = new JsonObject().put("message", e.getMessage()).put("code", e.failure().code())
        .put("error_type", e.failure().errorType());
    if (e.answered()) return f.put("kind", "agent_error");
    return f.put("kind", e.failure() == BusFailure.TIMEOUT ? "timeout" : "no_agent");
  }

  private EvalRun finish(Saving out, JsonObject meta, List<Question> questions, List<Verdict> verdicts,
      List<Sample> samples, Map<String, Boolean> readingCorrect) {
    JsonObject summary = MetricSummary.addTo(ClarificationSummary.addTo(VoteSummary.addTo(Summary.compute(verdicts,
        meta.copy().put("finished_at", Instant.now().toString())), samples, verdicts), samples, verdicts, readingCorrect),
        questions, samples);
    out.json(RunStore.SUMMARY, summary);
    return new EvalRun(out.id, out.dir, summary, List.copyOf(verdicts));
  }

  /** A saved run as regrade reads it: from the state store or from a directory of its files. */
  private record Saved(String name, String answersSource, List<JsonObject> answers, JsonObject meta,
      java.util.function.Supplier<List<Question>> questions) {}

  private Saved load(String run) {
    Path asPath = null;
    try {
      asPath = Path.of(run);
    } catch (java.nio.file.InvalidPathException e) {
      // not a path: a name in the state store
    }
    if (asPath != null && java.nio.file.Files.isDirectory(asPath)) {
      Path dir = asPath.toAbsolutePath().normalize();
      Path answers = dir.resolve(RunStore.ANSWERS);
      if (!java.nio.file.Files.isRegularFile(answers)) {
        throw new IllegalArgumentException("no saved run in the directory " + dir + ": it has no " + RunStore.ANSWERS);
      }
      JsonObject meta = java.nio.file.Files.isRegularFile(dir.resolve(RunStore.RUN))
          ? RunFiles.readJson(dir.resolve(RunStore.RUN)) : new JsonObject();
      return new Saved(dir.getFileName().toString(), answers.toString(), RunFiles.readLines(answers), meta,
          () -> QuestionSet.load(dir.resolve(RunStore.QUESTIONS)));
    }
    if (!store.hasLines(run, RunStore.ANSWERS)) {
      List<String> names = store.names();
      if (names.contains(run)) {
        throw new IllegalArgumentException("the saved run \"" + run + "\" in " + store.where() + " has no answers yet");
      }
      throw new IllegalArgumentException("no saved run \"" + run + "\" in " + store.where() + "; saved runs: "
          + RunStore.list(names, 20));
    }
    return new Saved(run, store.describe(run, RunStore.ANSWERS), store.readLines(run, RunStore.ANSWERS),
        store.readJson(run, RunStore.RUN).orElseGet(JsonObject::new),
        () -> QuestionSet.parse(String.join("\n", store.readLines(run, RunStore.QUESTIONS).stream()
            .map(JsonObject::encode).toList()), store.describe(run, RunStore.QUESTIONS)));
  }

  /**
   * Re-scores a saved run (a name in the state store, or a directory of its files) from its saved answers,
   * with the given questions (or, when null, the questions saved with the run); saves a new run
   * ({@code <time>-regrade}) that records where it came from, exported too when the options say so. The
   * model is not called; the database is (gold SQL, truncated answers re-run).
   */
  public Future<EvalRun> regrade(String run, List<Question> questions) {
    record Loaded(Saved from, List<Question> qs, List<Sample> samples, List<Question> asked) {}
    return blocking(() -> {
      Saved from = load(run);
      List<Question> qs = questions != null ? questions : from.questions().get();
      Map<String, Question> byId = new HashMap<>();
      qs.forEach(q -> byId.put(q.id(), q));
      List<JsonObject> answers = from.answers();
      List<Sample> samples = new ArrayList<>();
      List<Question> asked = new ArrayList<>();
      for (int i = 0; i < answers.size(); i++) {
        Sample s = Sample.fromJson(answers.get(i));
        samples.add(s);
        Question q = byId.get(s.questionId());
        if (q == null) {
          throw new IllegalArgumentException(from.answersSource() + " line " + (i + 1) + ": question \""
              + s.questionId() + "\" is not in the question set used to regrade");
        }
        asked.add(q);
      }
      return new Loaded(from, qs, samples, asked);
    }).compose(loaded -> grader.prepare(loaded.qs())
        .compose(ready -> Grader.inTurn(java.util.stream.IntStream.range(0, loaded.samples().size()).boxed().toList(),
            i -> grader.grade(loaded.asked().get(i), loaded.samples().get(i))))
        .compose(verdicts -> ClarificationSummary.gradeReadings(grader, loaded.asked(), loaded.samples())
            .compose(readings -> blocking(() -> saveRegrade(loaded.from(), loaded.qs(), loaded.samples(), verdicts,
                questions, readings)))));
  }

  private EvalRun saveRegrade(Saved from, List<Question> qs, List<Sample> samples, List<Verdict> verdicts,
                              List<Question> questions, Map<String, Boolean> readingCorrect) {
    List<JsonObject> answers = from.answers();
    JsonObject meta = from.meta().copy()
        .put("regraded_from", from.name())
        .put("regraded_at", Instant.now().toString())
        .put("questions", qs.size());
    if (questions != null) meta.put("questions_file", options.questionsSource());
    Saving out = open("-regrade", meta);
    out.lines(RunStore.QUESTIONS, qs.stream().map(Question::toJson).toList());
    out.lines(RunStore.ANSWERS, answers);
    out.lines(RunStore.VERDICTS, verdicts.stream().map(Verdict::toJson).toList());
    JsonObject summary = MetricSummary.addTo(ClarificationSummary.addTo(VoteSummary.addTo(Summary.compute(verdicts, meta),
        samples, verdicts), samples, verdicts, readingCorrect), qs, samples);
    out.json(RunStore.SUMMARY, summary);
    return new EvalRun(out.id, out.dir, summary, List.copyOf(verdicts));
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
