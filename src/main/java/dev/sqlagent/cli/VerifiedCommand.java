package dev.sqlagent.cli;

import dev.sqlagent.Databases;
import dev.sqlagent.bus.BusError;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.contract.StateClient;
import dev.sqlagent.contract.StateMessages.VerifiedAdd;
import dev.sqlagent.contract.StateMessages.VerifiedList;
import dev.sqlagent.contract.StateMessages.VerifiedRemove;
import dev.sqlagent.state.StateDatabase;
import dev.sqlagent.execution.ExecutionVerticle;
import dev.sqlagent.execution.Gate;
import dev.sqlagent.verified.VerifiedVerticle;
import io.vertx.core.Vertx;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code sql-agent verified add|list|remove|export|import}: the library of verified queries of the target, in
 * the state store. Adding goes through the gate (static check and EXPLAIN) exactly as the page's "verify" does;
 * export and import use JSON lines {@code {"question", "sql"}} so a team keeps the library in git.
 */
@Command(name = "verified", mixinStandardHelpOptions = true,
    description = "Verified queries: questions with SQL a person vouched for; they answer paraphrases without the model.",
    subcommands = {VerifiedCommand.Add.class, VerifiedCommand.ListAll.class, VerifiedCommand.Remove.class,
        VerifiedCommand.Export.class, VerifiedCommand.Import.class})
public final class VerifiedCommand implements Callable<Integer> {

  @Spec
  CommandSpec spec;

  private final Supplier<AppConfig> configuration;

  public VerifiedCommand() {
    this(AppConfig::fromEnvironment);
  }

  VerifiedCommand(Supplier<AppConfig> configuration) {
    this.configuration = configuration;
  }

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getOut());
    return 2;
  }

  /** What each subcommand does with the library, given the event bus it answers on. */
  interface Work {
    int run(Vertx vertx, PrintWriter out, PrintWriter err) throws Exception;
  }

  /** Starts the gate and the library (nothing else: no model, no HTTP), does the work, stops. */
  int withLibrary(Work work) throws Exception {
    AppConfig config = configuration.get();
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try (Databases db = Databases.open(config)) {
      Vertx vertx = Vertx.vertx(config.vertxOptions());
      try {
        vertx.deployVerticle(new ExecutionVerticle(db.target(), Gate.Settings.from(config), config.users().dbRoles()))
            .compose(id -> vertx.deployVerticle(new VerifiedVerticle(db.target(),
                StateDatabase.open(vertx, db.state(), config.statePoolSize()), config.verifiedThreshold())))
            .await(2, TimeUnit.MINUTES);
        int code = work.run(vertx, out, err);
        out.flush();
        err.flush();
        return code;
      } finally {
        vertx.close().await(30, TimeUnit.SECONDS);
      }
    }
  }

  /** A request to the library; a refusal or failure is thrown as a {@link BusError}, in plain words. */
  static StateClient library(Vertx vertx) {
    return new StateClient(vertx, 120_000);
  }

  static String describe(JsonObject v) {
    String head = "#" + v.getLong("verified_id") + " " + ("retired".equals(v.getString("status"))
        ? "RETIRED (" + v.getString("retired_reason") + ")" : "active") + ": " + v.getString("question");
    return head + "\n    " + v.getString("sql").replaceAll("\\s+", " ");
  }

  @Command(name = "add", mixinStandardHelpOptions = true,
      description = "Check the SQL through the gate (static check and EXPLAIN) and save it as the verified answer to the question.")
  static final class Add implements Callable<Integer> {
    @picocli.CommandLine.ParentCommand
    VerifiedCommand parent;

    @Option(names = "--question", required = true, description = "the question, in plain English")
    String question;

    @Option(names = "--sql", required = true, description = "one SELECT that answers it")
    String sql;

    @Override
    public Integer call() throws Exception {
      return parent.withLibrary((vertx, out, err) -> {
        try {
          JsonObject saved = library(vertx).addVerified(new VerifiedAdd(question, sql, null, null)).await();
          out.println("saved " + describe(saved));
          return 0;
        } catch (BusError e) {
          err.println("sql-agent verified add: " + e.getMessage());
          return 1;
        }
      });
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true,
      description = "Every verified query, active or retired (with the gate's reason); exit 1 when any is retired.")
  static final class ListAll implements Callable<Integer> {
    @picocli.CommandLine.ParentCommand
    VerifiedCommand parent;

    @Option(names = "--json", description = "print the list as JSON")
    boolean json;

    @Override
    public Integer call() throws Exception {
      return parent.withLibrary((vertx, out, err) -> {
        VerifiedList list = library(vertx).verifiedList().await();
        if (json) {
          out.println(list.toJson().encodePrettily());
        } else {
          list.verified().forEach(v -> out.println(describe((JsonObject) v)));
          out.println(list.active() + " active, " + list.retired() + " retired");
        }
        return list.retired() > 0 ? 1 : 0;
      });
    }
  }

  @Command(name = "remove", mixinStandardHelpOptions = true, description = "Remove one verified query by its id.")
  static final class Remove implements Callable<Integer> {
    @picocli.CommandLine.ParentCommand
    VerifiedCommand parent;

    @Parameters(index = "0", paramLabel = "ID", description = "the verified query's id (from list)")
    long id;

    @Override
    public Integer call() throws Exception {
      return parent.withLibrary((vertx, out, err) -> {
        try {
          library(vertx).removeVerified(new VerifiedRemove(id)).await();
          out.println("removed #" + id);
          return 0;
        } catch (BusError e) {
          err.println("sql-agent verified remove: " + e.getMessage());
          return 1;
        }
      });
    }
  }

  @Command(name = "export", mixinStandardHelpOptions = true,
      description = "Write every verified query as JSON lines {\"question\", \"sql\"} to FILE.")
  static final class Export implements Callable<Integer> {
    @picocli.CommandLine.ParentCommand
    VerifiedCommand parent;

    @Parameters(index = "0", paramLabel = "FILE.jsonl")
    Path file;

    @Override
    public Integer call() throws Exception {
      return parent.withLibrary((vertx, out, err) -> {
        VerifiedList list = library(vertx).verifiedList().await();
        List<String> lines = new ArrayList<>();
        list.verified().forEach(o -> {
          JsonObject v = (JsonObject) o;
          lines.add(new JsonObject().put("question", v.getString("question")).put("sql", v.getString("sql")).encode());
        });
        vertx.executeBlocking(() -> Files.write(file, lines, StandardCharsets.UTF_8)).await();
        out.println("exported " + lines.size() + " verified queries to " + file);
        return 0;
      });
    }
  }

  @Command(name = "import", mixinStandardHelpOptions = true,
      description = "Add every {\"question\", \"sql\"} line of FILE through the gate; exit 1 if any line was refused.")
  static final class Import implements Callable<Integer> {
    @picocli.CommandLine.ParentCommand
    VerifiedCommand parent;

    @Parameters(index = "0", paramLabel = "FILE.jsonl")
    Path file;

    @Override
    public Integer call() throws Exception {
      if (!Files.isReadable(file)) {
        parent.spec.commandLine().getErr().println("sql-agent verified import: cannot read " + file);
        return 2;
      }
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      return parent.withLibrary((vertx, out, err) -> {
        int saved = 0;
        int refused = 0;
        for (int i = 0; i < lines.size(); i++) {
          String line = lines.get(i).strip();
          if (line.isEmpty()) continue;
          try {
            JsonObject entry = new JsonObject(line);
            library(vertx).addVerified(new VerifiedAdd(entry.getValue("question"), entry.getValue("sql"), null, null)).await();
            saved++;
          } catch (DecodeException | ClassCastException e) {
            err.println(file + " line " + (i + 1) + ": not a JSON object");
            refused++;
          } catch (BusError e) {
            err.println(file + " line " + (i + 1) + ": " + e.getMessage());
            refused++;
          }
        }
        out.println("imported " + saved + " verified queries" + (refused > 0 ? ", " + refused + " refused" : ""));
        return refused > 0 ? 1 : 0;
      });
    }
  }
}
