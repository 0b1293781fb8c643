package dev.sqlagent.cli;

import dev.sqlagent.Databases;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.demo.DemoShop;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** Rebuilds the embedded demo shop and its agent role, then proves the role. Never touches a target given by URL. */
@Command(name = "setup", mixinStandardHelpOptions = true,
    description = "Rebuild the embedded demo shop (deterministic data) and its read-only agent role, then prove the "
        + "role by attempting what it must not do. Only the embedded demo: a database given by SQLAGENT_DB_URL is "
        + "never written (see 'demo --into' and 'grant').")
public final class SetupCommand implements Callable<Integer> {

  @Override
  public Integer call() throws Exception {
    AppConfig config = AppConfig.fromEnvironment();
    try (Databases db = Databases.open(config, false)) {
      DemoShop demo = db.demo(config);
      long t0 = System.nanoTime();
      List<String> proofs = demo.run();
      System.out.printf("demo setup of %s done in %d ms%n", demo.target(), (System.nanoTime() - t0) / 1_000_000);
      proofs.forEach(p -> System.out.println("  proved: " + p));
      db.state().proveLogRole().forEach(p -> System.out.println("  proved: " + p));
      return 0;
    }
  }
}
