package dev.sqlagent.cli;

import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.Discovery;
import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.contract.GateReply;
import dev.sqlagent.contract.GateRequest;
import dev.sqlagent.db.Target;
import dev.sqlagent.execution.Gate;
import dev.sqlagent.notes.Notes;
import dev.sqlagent.notes.TableNames;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The notes file's governed metrics, each checked through the gate as any statement is (parsed, its functions and
 * tables judged, planned; never run): its expression over its tables with its filters. A metric the gate refuses
 * would be handed to the model as the definition to follow, so status says why, in the gate's words.
 */
final class MetricChecks {
  private MetricChecks() {}

  /** One check per metric of {@code config}'s notes file; none when it defines none. Blocking. */
  static List<Status.Check> run(Target target, AppConfig config) {
    List<Notes.Metric> metrics = config.notes().metrics();
    if (metrics.isEmpty()) return List.of();
    List<Status.Check> checks = new ArrayList<>();
    List<String> names;
    try {
      Catalogue cat = Discovery.readBlocking(target, config.schemas());
      names = cat.tables().stream().map(TableInfo::name).toList();
    } catch (Exception e) {
      checks.add(new Status.Check("metrics", false, "discovery failed: "
          + dev.sqlagent.db.ConnectFailure.describe(e, target.url())));
      return checks;
    }
    Vertx vertx = Vertx.vertx(config.vertxOptions());
    try {
      Gate gate = Gate.start(vertx, Gate.Database.of(target), Gate.Settings.from(config)).await(2, TimeUnit.MINUTES);
      try {
        for (Notes.Metric m : metrics) checks.add(check(gate, m, names));
      } finally {
        gate.close().await(30, TimeUnit.SECONDS);
      }
    } catch (Exception e) {
      checks.add(new Status.Check("metrics", false, "the gate did not start: " + firstLine(e.getMessage())));
    } finally {
      try {
        vertx.close().await(30, TimeUnit.SECONDS);
      } catch (java.util.concurrent.TimeoutException slow) {
        // The checks are made; a slow close changes none of them.
      }
    }
    return checks;
  }

  private static Status.Check check(Gate gate, Notes.Metric m, List<String> names) {
    String name = "metric: " + m.name();
    List<String> tables = new ArrayList<>();
    for (Notes.TableRef t : m.tables()) {
      Optional<String> known = TableNames.resolve(t.name(), names);
      if (known.isEmpty()) return new Status.Check(name, false, "table '" + t.name() + "' is not one the agent role can read");
      tables.add(known.get());
    }
    String probe = m.probe(tables);
    try {
      GateReply reply = gate.submit(GateRequest.check(probe)).await(2, TimeUnit.MINUTES);
      if (reply.ok()) return new Status.Check(name, true, "passes the gate: " + m.sql() + " over " + String.join(", ", tables));
      return new Status.Check(name, false, "refused by the gate (" + reply.error().type().wireName() + "): "
          + reply.error().message() + " in " + probe);
    } catch (Exception e) {
      return new Status.Check(name, false, "the gate did not answer: " + firstLine(e.getMessage()));
    }
  }

  private static String firstLine(String s) {
    return s == null ? "" : s.lines().findFirst().orElse("");
  }
}
