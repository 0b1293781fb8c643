package dev.sqlagent.cli;

import dev.sqlagent.config.AppConfig;
import dev.sqlagent.config.ConfigException;
import dev.sqlagent.localmodel.LocalModelServer;
import dev.sqlagent.localmodel.ModelCatalogue;
import dev.sqlagent.localmodel.ModelPull;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code sql-agent model}: a local model to answer without an API key. */
@Command(name = "model", mixinStandardHelpOptions = true,
    description = "A local model (GGUF) that the service serves itself when no SQLAGENT_LLM_BASE_URL is set.",
    subcommands = {ModelCommand.Pull.class, ModelCommand.Serve.class, ModelCommand.ListModels.class})
public final class ModelCommand implements Callable<Integer> {

  @Override
  public Integer call() {
    System.err.println("sql-agent model: say pull, serve or list (sql-agent model --help)");
    return 2;
  }

  /** {@code model pull}: download a model into SQLAGENT_HOME/models, where the service finds it. */
  @Command(name = "pull", mixinStandardHelpOptions = true,
      description = "Download a model into SQLAGENT_HOME/models (resumable, sha256-checked), where the service finds it.")
  static final class Pull implements Callable<Integer> {
    @Parameters(index = "0", arity = "0..1", paramLabel = "NAME", description = "a catalogue name (sql-agent model list); "
        + "default " + ModelCatalogue.DEFAULT)
    String name = ModelCatalogue.DEFAULT;

    @Option(names = "--base-url", paramLabel = "URL", defaultValue = "https://huggingface.co",
        description = "where models are published: the file is <URL>/<repo>/resolve/main/<file> (default: ${DEFAULT-VALUE})")
    String baseUrl;

    @Option(names = "--sha256", paramLabel = "HEX", description = "the file's sha256, when neither the catalogue nor the server states it")
    String sha256;

    @Option(names = "--to", paramLabel = "DIR", description = "directory to put it in (default: SQLAGENT_HOME/models)")
    Path dir;

    @Override
    public Integer call() throws Exception {
      ModelCatalogue.Entry e = ModelCatalogue.byName(name).orElseThrow(() -> new ConfigException("no model named '" + name
          + "'; known: " + String.join(", ", ModelCatalogue.all().stream().map(ModelCatalogue.Entry::name).toList())));
      if (e.hubRepo() == null || e.hubFile() == null) {
        throw new ConfigException(name + " is not published on a model hub; fetch it from PyPI with "
            + "scripts/local-model.sh fetch " + name);
      }
      Path to = dir != null ? dir : AppConfig.fromEnvironment().home().resolve("models");
      URI url = URI.create(baseUrl.replaceAll("/+$", "") + "/" + e.hubRepo() + "/resolve/main/" + e.hubFile());
      PrintStream err = new PrintStream(System.err, true, StandardCharsets.UTF_8);
      err.println("pulling " + name + " from " + url);
      boolean terminal = System.console() != null;
      ModelPull.Pulled p = ModelPull.create().pull(url, to, e.hubFile(), sha256 != null ? sha256 : e.hubSha256(),
          (done, total) -> {
            if (terminal) err.print("\r" + ModelPull.bar(done, total, 30));
          });
      if (terminal) err.println();
      System.out.println(p.file() + "  " + p.info().summary() + "  sha256 " + p.sha256() + (p.resumed() ? "  (resumed)" : ""));
      return 0;
    }
  }

  /** {@code model serve}: the local model server alone, on loopback, for development and measurement. */
  @Command(name = "serve", mixinStandardHelpOptions = true,
      description = "Serve a GGUF on http://127.0.0.1:PORT/v1 (OpenAI chat API) in this process.")
  static final class Serve implements Callable<Integer> {
    @Option(names = "--model", required = true, paramLabel = "FILE", description = "the .gguf file")
    Path model;

    @Option(names = "--port", defaultValue = "8091", description = "port on 127.0.0.1 (default ${DEFAULT-VALUE}; 0: any free one)")
    int port;

    @Option(names = "--ctx", defaultValue = "0", description = "context size in tokens (default: the model's, at most 8192)")
    int ctx;

    @Option(names = "--threads", defaultValue = "0", description = "threads (default: every processor)")
    int threads;

    @Override
    public Integer call() throws Exception {
      List<String> args = new ArrayList<>(List.of("--model", model.toString(), "--port", String.valueOf(port)));
      if (ctx > 0) args.addAll(List.of("--ctx", String.valueOf(ctx)));
      if (threads > 0) args.addAll(List.of("--threads", String.valueOf(threads)));
      LocalModelServer.main(args.toArray(String[]::new));
      ServeCommand.markRunning();
      return 0;
    }
  }

  /** {@code model list}: the catalogue and where each model comes from. */
  @Command(name = "list", mixinStandardHelpOptions = true, description = "The models sql-agent knows by name.")
  static final class ListModels implements Callable<Integer> {
    @Override
    public Integer call() {
      for (ModelCatalogue.Entry e : ModelCatalogue.all()) {
        System.out.printf("%-20s %5d MB  %s%s%n", e.name(), e.bytes() / 1_000_000, e.file(),
            e.hubRepo() == null ? "  (PyPI only: scripts/local-model.sh fetch " + e.name() + ")" : "  (hub: " + e.hubRepo() + ")");
      }
      return 0;
    }
  }
}
