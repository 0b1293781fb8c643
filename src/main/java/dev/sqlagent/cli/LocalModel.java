package dev.sqlagent.cli;

import dev.sqlagent.config.AppConfig;
import dev.sqlagent.config.ConfigException;
import dev.sqlagent.localmodel.ChildModelServer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The configuration's local model (a GGUF and no model server named), served by a child process for as long as a
 * command runs; every command that talks to the model (serve, ask, eval) goes through here. With a model server
 * named it serves nothing and the configuration stays as it is.
 */
final class LocalModel implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LocalModel.class);
  /** Loading takes a while on a CPU, the speed check after it one short call more. */
  private static final long LOAD_MS = 120_000L;

  private final AppConfig config;
  private final ChildModelServer child;

  private LocalModel(AppConfig config, ChildModelServer child) {
    this.config = config;
    this.child = child;
  }

  /** Starts serving the configuration's local model, if it names one; returns once the child listens. */
  static LocalModel start(AppConfig config) {
    if (config.localModel().isEmpty()) return none(config);
    Path file = config.localModel().get();
    Path log = config.home().resolve("local-model.log");
    try {
      ChildModelServer child = ChildModelServer.start(file, log, List.of());
      LOG.info("local model: {} ({}) served by a child process at {} (its log: {})", file, child.info().summary(),
          child.baseUrl(), log);
      return new LocalModel(config.withModelServer(child.baseUrl(), child.alias()), child);
    } catch (IOException e) {
      throw new ConfigException("the local model " + file + " cannot be served: " + e.getMessage());
    }
  }

  /** Nothing served here (a node without the agent, or a model server named). */
  static LocalModel none(AppConfig config) {
    return new LocalModel(config, null);
  }

  /** The configuration, pointed at the served model when there is one. */
  AppConfig config() {
    return config;
  }

  /** For a command that asks at once: waits until the model has loaded, or says why it did not. */
  void awaitLoaded() throws IOException {
    if (child != null) child.awaitLoaded(config.llmCallTimeoutMs() + LOAD_MS);
  }

  @Override
  public void close() {
    if (child != null) child.close();
  }
}
