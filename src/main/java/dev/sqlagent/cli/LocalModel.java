package dev.sqlagent.cli;

import dev.sqlagent.config.AppConfig;
import dev.sqlagent.config.ConfigException;
import dev.sqlagent.localmodel.ChildModelServer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The configuration's local model (a GGUF and no model server named), served by a child process. */
final class LocalModel {
  private static final Logger LOG = LoggerFactory.getLogger(LocalModel.class);

  private LocalModel() {}

  /** The started child, or null when the configuration names a model server instead. */
  static ChildModelServer start(AppConfig config) {
    if (config.localModel().isEmpty()) return null;
    Path file = config.localModel().get();
    Path log = config.home().resolve("local-model.log");
    try {
      ChildModelServer child = ChildModelServer.start(file, log, List.of());
      LOG.info("local model: {} ({}) served by a child process at {} (its log: {})", file, child.info().summary(),
          child.baseUrl(), log);
      return child;
    } catch (IOException e) {
      throw new ConfigException("the local model " + file + " cannot be served: " + e.getMessage());
    }
  }
}
