package dev.sqlagent.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code sql-agent}: the service by default, and its admin and developer commands. */
@Command(name = "sql-agent", mixinStandardHelpOptions = true, version = "sql-agent 0.1.0",
    description = "Answers plain-English questions about PostgreSQL with one checked, read-only SELECT.",
    subcommands = {ServeCommand.class, SetupCommand.class, StatusCommand.class, AskCommand.class,
        CheckCommand.class, EvalCommand.class, McpCommand.class, DriftCommand.class, DemoCommand.class,
        GrantCommand.class, VerifiedCommand.class, LearnCommand.class, ModelCommand.class})
public final class Main implements java.util.concurrent.Callable<Integer> {

  public static void main(String[] args) {
    int code = new CommandLine(new Main()).setExecutionExceptionHandler(Main::onError).execute(args);
    if (code != 0 || !ServeCommand.running()) System.exit(code);
  }

  /** No subcommand: run the service. */
  @Override
  public Integer call() throws Exception {
    return new ServeCommand().call();
  }

  /** Errors reach the user as one clear line, never a stack trace. */
  private static int onError(Exception e, CommandLine cmd, CommandLine.ParseResult parsed) {
    cmd.getErr().println("sql-agent: " + Errors.describe(e));
    return 2;
  }
}
