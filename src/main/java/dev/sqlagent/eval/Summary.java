package dev.sqlagent.eval;

import dev.sqlagent.results.ResultComparator;
import dev.sqlagent.eval.FaultInjector.FaultType;
import dev.sqlagent.eval.Question.Category;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The numbers of a run, per mode: accuracy overall and per category (over graded samples, infrastructure
 * failures counted apart), exact and subset matches, correct and false refusals, first-attempt failures and
 * how many repair rescued, mean attempts to success, median latency, tokens and cost, unsafe SQL reaching
 * execution and, with fault injection, the rescue rate per fault type.
 */
public final class Summary {

  private Summary() {}

  /** The summary JSON: {@code meta}'s fields plus {@code modes: {mode: numbers}}. */
  public static JsonObject compute(List<Verdict> verdicts, JsonObject meta) {
    Map<String, List<Verdict>> byMode = new TreeMap<>(Comparator.comparingInt(Summary::modeOrder)
        .thenComparing(Comparator.naturalOrder()));
    for (Verdict v : verdicts) byMode.computeIfAbsent(v.mode(), k -> new ArrayList<>()).add(v);
    JsonObject modes = new JsonObject();
    byMode.forEach((m, vs) -> modes.put(m, forMode(vs)));
    String model = verdicts.stream().map(Verdict::model).filter(x -> x != null && !x.isBlank()).findFirst().orElse(null);
    JsonObject out = meta.copy();
    if (!out.containsKey("model")) out.put("model", model);
    return out.put("modes", modes);
  }

  /** The agent first, then the single-shot baseline. */
  private static int modeOrder(String mode) {
    return switch (mode) {
      case "agent" -> 0;
      case "baseline" -> 1;
      default -> 2;
    };
  }

  static JsonObject forMode(List<Verdict> vs) {
    JsonObject o = new JsonObject();
    Set<String> questions = new LinkedHashSet<>();
    vs.forEach(v -> questions.add(v.questionId()));
    o.put("questions", questions.size()).put("samples", vs.size());
    o.mergeIn(score(vs));
    o.put("exact_matches", count(vs, v -> v.correct() && v.match() == ResultComparator.Match.EXACT));
    o.put("subset_matches", count(vs, v -> v.correct() && v.match() == ResultComparator.Match.SUBSET));

    // Categories in the order their first question came: a benchmark's own labels keep the file's order.
    Map<Category, List<Verdict>> perCategory = new LinkedHashMap<>();
    for (Verdict v : vs) perCategory.computeIfAbsent(v.category(), k -> new ArrayList<>()).add(v);
    JsonObject byCategory = new JsonObject();
    perCategory.forEach((c, cv) -> byCategory.put(c.wireName(), score(cv)));
    o.put("by_category", byCategory);

    List<Verdict> mustRefuse = vs.stream().filter(v -> !v.category().answerable() && !v.infra()).toList();
    List<Verdict> answerable = vs.stream().filter(v -> v.category().answerable() && !v.infra()).toList();
    o.put("correct_refusals", count(mustRefuse, Verdict::correct)).put("refusals_expected", mustRefuse.size());
    o.put("false_refusals", count(answerable, Verdict::refused));

    int firstFailed = count(answerable, Verdict::firstAttemptFailed);
    int rescued = count(answerable, Verdict::rescued);
    o.put("first_attempt_failures", firstFailed).put("rescued_by_repair", rescued)
        .put("rescue_rate", ratio(rescued, firstFailed));

    List<Verdict> successes = answerable.stream().filter(Verdict::correct).toList();
    o.put("mean_attempts_to_success", successes.isEmpty() ? null
        : round(successes.stream().mapToInt(v -> Math.max(1, v.attempts())).average().orElse(0), 2));
    o.put("mean_attempts", answerable.isEmpty() ? null
        : round(answerable.stream().mapToInt(v -> Math.max(1, v.attempts())).average().orElse(0), 2));
    // A give-up on an answerable question: the agent said it could not answer after its attempts (no answer shown).
    int gaveUp = count(answerable, Verdict::gaveUp);
    o.put("gave_up", gaveUp).put("give_up_rate", ratio(gaveUp, answerable.size()));
    List<Long> latencies = vs.stream().map(Verdict::latencyMs).toList();
    o.put("median_latency_ms", median(latencies));
    o.put("p95_latency_ms", percentile(latencies, 95));
    o.put("tokens", new JsonObject()
        .put("prompt", vs.stream().mapToLong(Verdict::promptTokens).sum())
        .put("completion", vs.stream().mapToLong(Verdict::completionTokens).sum()));
    o.put("cost_usd", round(vs.stream().mapToDouble(Verdict::costUsd).sum(), 6));
    o.put("unsafe_sql_reaching_execution", count(vs, Verdict::unsafeExecuted));

    Map<String, Integer> infraTypes = new TreeMap<>();
    vs.stream().filter(Verdict::infra).forEach(v -> infraTypes.merge(v.infraType(), 1, Integer::sum));
    o.put("infra_failures_by_type", new JsonObject(new LinkedHashMap<>(infraTypes)));

    List<Verdict> faulted = answerable.stream().filter(v -> v.faultType() != null).toList();
    if (!faulted.isEmpty()) o.put("faults", faults(faulted));
    return o;
  }

  /**
   * Per fault type: injected m, rescued n (answered correctly despite the fault), and n/m; the same over
   * all faults; and the samples where no fault applied (their plain accuracy).
   */
  private static JsonObject faults(List<Verdict> faulted) {
    Map<String, List<Verdict>> byType = new LinkedHashMap<>();
    for (FaultType t : FaultType.values()) byType.put(t.wireName(), new ArrayList<>());
    List<Verdict> notApplied = new ArrayList<>();
    for (Verdict v : faulted) {
      if ("none".equals(v.faultType())) notApplied.add(v);
      else byType.computeIfAbsent(v.faultType(), k -> new ArrayList<>()).add(v);
    }
    JsonObject types = new JsonObject();
    byType.forEach((type, vs) -> types.put(type, rescue(vs)));
    List<Verdict> injected = faulted.stream().filter(v -> !"none".equals(v.faultType())).toList();
    return new JsonObject().put("by_type", types).put("all", rescue(injected))
        .put("not_applied", new JsonObject().put("samples", notApplied.size())
            .put("correct", count(notApplied, Verdict::correct)));
  }

  private static JsonObject rescue(List<Verdict> vs) {
    int n = count(vs, Verdict::correct);
    return new JsonObject().put("injected", vs.size()).put("rescued", n).put("rescue_rate", ratio(n, vs.size()));
  }

  /** Accuracy over graded samples; infrastructure failures are neither right nor wrong. */
  private static JsonObject score(List<Verdict> vs) {
    int infra = count(vs, Verdict::infra);
    int graded = vs.size() - infra;
    int correct = count(vs, Verdict::correct);
    return new JsonObject().put("samples", vs.size()).put("graded", graded).put("correct", correct)
        .put("wrong", graded - correct).put("infra_failures", infra).put("accuracy", ratio(correct, graded));
  }

  private static int count(List<Verdict> vs, java.util.function.Predicate<Verdict> p) {
    return (int) vs.stream().filter(p).count();
  }

  private static Double ratio(int n, int of) {
    return of == 0 ? null : round((double) n / of, 4);
  }

  private static double round(double x, int places) {
    double f = Math.pow(10, places);
    return Math.round(x * f) / f;
  }

  /** The nearest-rank percentile ({@code p} of 100) of the known latencies; null when there are none. */
  static Long percentile(List<Long> xs, int p) {
    List<Long> s = xs.stream().filter(x -> x != null && x >= 0).sorted(Comparator.naturalOrder()).toList();
    if (s.isEmpty()) return null;
    int rank = (int) Math.ceil(p / 100.0 * s.size());
    return s.get(Math.max(0, Math.min(s.size() - 1, rank - 1)));
  }

  static Long median(List<Long> xs) {
    List<Long> s = xs.stream().filter(x -> x != null && x >= 0).sorted(Comparator.naturalOrder()).toList();
    if (s.isEmpty()) return null;
    int n = s.size();
    return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
  }

  // ---- the printed table ---------------------------------------------------------------------------

  /** A readable table of the summary: one row per metric, one column per mode. */
  public static String table(JsonObject summary) {
    JsonObject modes = summary.getJsonObject("modes", new JsonObject());
    List<String> names = new ArrayList<>(modes.fieldNames());
    List<String[]> rows = new ArrayList<>();
    rows.add(row("metric", names, m -> m));
    rows.add(row("accuracy", names, m -> pct(modes.getJsonObject(m))));
    Set<String> labels = new LinkedHashSet<>();
    names.forEach(m -> labels.addAll(modes.getJsonObject(m).getJsonObject("by_category").fieldNames()));
    for (String label : labels) {
      rows.add(row("  " + label, names, m -> pct(modes.getJsonObject(m).getJsonObject("by_category").getJsonObject(label))));
    }
    rows.add(row("exact / subset matches", names, m -> modes.getJsonObject(m).getInteger("exact_matches") + " / "
        + modes.getJsonObject(m).getInteger("subset_matches")));
    rows.add(row("correct refusals", names, m -> modes.getJsonObject(m).getInteger("correct_refusals") + " of "
        + modes.getJsonObject(m).getInteger("refusals_expected")));
    rows.add(row("false refusals", names, m -> String.valueOf(modes.getJsonObject(m).getInteger("false_refusals"))));
    rows.add(row("first-attempt failures", names, m -> String.valueOf(modes.getJsonObject(m)
        .getInteger("first_attempt_failures"))));
    rows.add(row("rescued by repair", names, m -> modes.getJsonObject(m).getInteger("rescued_by_repair") + " of "
        + modes.getJsonObject(m).getInteger("first_attempt_failures")));
    rows.add(row("mean attempts to success", names, m -> String.valueOf(orDash(modes.getJsonObject(m)
        .getValue("mean_attempts_to_success")))));
    rows.add(row("mean attempts", names, m -> String.valueOf(orDash(modes.getJsonObject(m).getValue("mean_attempts")))));
    rows.add(row("gave up (answerable)", names, m -> {
      JsonObject mode = modes.getJsonObject(m);
      Double r = mode.getDouble("give_up_rate");
      return mode.getInteger("gave_up", 0) + (r == null ? "" : String.format(Locale.ROOT, " (%.1f%%)", r * 100));
    }));
    rows.add(row("median latency", names, m -> {
      Object ms = modes.getJsonObject(m).getValue("median_latency_ms");
      return ms == null ? "-" : ms + " ms";
    }));
    rows.add(row("p95 latency", names, m -> {
      Object ms = modes.getJsonObject(m).getValue("p95_latency_ms");
      return ms == null ? "-" : ms + " ms";
    }));
    rows.add(row("tokens prompt / completion", names, m -> {
      JsonObject t = modes.getJsonObject(m).getJsonObject("tokens");
      return t.getLong("prompt") + " / " + t.getLong("completion");
    }));
    if (names.stream().anyMatch(m -> modes.getJsonObject(m).containsKey("vote"))) {
      rows.add(row("vote changed the answer", names, m -> {
        JsonObject v = modes.getJsonObject(m).getJsonObject("vote");
        return v == null ? "-" : v.getInteger("changed") + " of " + v.getInteger("voted") + " ("
            + v.getInteger("changed_correct") + " correct)";
      }));
    }
    if (names.stream().anyMatch(m -> modes.getJsonObject(m).getJsonObject("clarification", new JsonObject())
        .getInteger("asked", 0) > 0)) {
      rows.add(row("asked back (needs_clarification)", names, m -> {
        JsonObject c = modes.getJsonObject(m).getJsonObject("clarification");
        return c == null ? "-" : c.getInteger("asked") + " of " + c.getInteger("graded");
      }));
      rows.add(row("accuracy: vote's pick / reading chosen", names, m -> {
        JsonObject c = modes.getJsonObject(m).getJsonObject("clarification");
        return c == null || c.getValue("accuracy_vote_pick") == null ? "-" : String.format(Locale.ROOT, "%.4f / %.4f",
            c.getDouble("accuracy_vote_pick"), c.getDouble("accuracy_asked_reading"));
      }));
    }
    if (names.stream().anyMatch(m -> modes.getJsonObject(m).containsKey("metric_use"))) {
      rows.add(row("metric use", names, m -> {
        JsonObject u = modes.getJsonObject(m).getJsonObject("metric_use");
        return u == null ? "-" : u.getInteger("used") + " of " + u.getInteger("expected");
      }));
    }
    rows.add(row("cost", names, m -> String.format(Locale.ROOT, "$%.4f", modes.getJsonObject(m).getDouble("cost_usd"))));
    rows.add(row("unsafe SQL reaching execution", names, m -> String.valueOf(modes.getJsonObject(m)
        .getInteger("unsafe_sql_reaching_execution"))));
    rows.add(row("infrastructure failures", names, m -> {
      JsonObject mode = modes.getJsonObject(m);
      JsonObject byType = mode.getJsonObject("infra_failures_by_type");
      return mode.getInteger("infra_failures") + (byType.isEmpty() ? "" : " " + byType.encode());
    }));
    Set<String> faultTypes = new LinkedHashSet<>();
    names.forEach(m -> {
      JsonObject f = modes.getJsonObject(m).getJsonObject("faults");
      if (f != null) faultTypes.addAll(f.getJsonObject("by_type").fieldNames());
    });
    for (String t : faultTypes) {
      rows.add(row("rescued, fault " + t, names, m -> rescueCell(modes.getJsonObject(m), f -> f.getJsonObject("by_type")
          .getJsonObject(t))));
    }
    if (!faultTypes.isEmpty()) {
      rows.add(row("rescued, all faults", names, m -> rescueCell(modes.getJsonObject(m), f -> f.getJsonObject("all"))));
      rows.add(row("no fault applicable: correct", names, m -> {
        JsonObject f = modes.getJsonObject(m).getJsonObject("faults");
        if (f == null) return "-";
        JsonObject x = f.getJsonObject("not_applied");
        return x.getInteger("correct") + " of " + x.getInteger("samples");
      }));
    }
    int w0 = rows.stream().mapToInt(r -> r[0].length()).max().orElse(10);
    int[] w = new int[names.size()];
    for (int i = 0; i < names.size(); i++) {
      final int k = i + 1;
      w[i] = rows.stream().mapToInt(r -> r[k].length()).max().orElse(8);
    }
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "evaluation %s  model %s  questions %s  runs %s%s%n",
        summary.getString("run_id", "?"), orDash(summary.getValue("model")), orDash(summary.getValue("questions")),
        orDash(summary.getValue("runs")), summary.getBoolean("inject_faults", false) ? "  with injected faults" : ""));
    for (int r = 0; r < rows.size(); r++) {
      String[] x = rows.get(r);
      b.append(pad(x[0], w0));
      for (int i = 0; i < names.size(); i++) b.append("  ").append(pad(x[i + 1], w[i]));
      b.append(System.lineSeparator());
      if (r == 0) b.append("-".repeat(w0 + java.util.Arrays.stream(w).map(v -> v + 2).sum())).append(System.lineSeparator());
    }
    return b.append(MetricSummary.misses(summary)).toString();
  }

  private static String rescueCell(JsonObject mode, java.util.function.Function<JsonObject, JsonObject> pick) {
    JsonObject f = mode.getJsonObject("faults");
    JsonObject x = f == null ? null : pick.apply(f);
    if (x == null) return "-";
    Double r = x.getDouble("rescue_rate");
    return x.getInteger("rescued") + " of " + x.getInteger("injected")
        + (r == null ? "" : String.format(Locale.ROOT, " (%.1f%%)", r * 100));
  }

  private static String[] row(String label, List<String> modes, java.util.function.Function<String, String> cell) {
    String[] r = new String[modes.size() + 1];
    r[0] = label;
    for (int i = 0; i < modes.size(); i++) r[i + 1] = cell.apply(modes.get(i));
    return r;
  }

  private static String pct(JsonObject score) {
    if (score == null) return "-";
    Double acc = score.getDouble("accuracy");
    String base = score.getInteger("correct") + "/" + score.getInteger("graded");
    return acc == null ? base : String.format(Locale.ROOT, "%.1f%% (%s)", acc * 100, base);
  }

  private static Object orDash(Object o) {
    return o == null ? "-" : o;
  }

  private static String pad(String s, int w) {
    return s + " ".repeat(Math.max(0, w - s.length()));
  }
}
