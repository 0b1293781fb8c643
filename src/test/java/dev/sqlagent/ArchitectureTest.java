package dev.sqlagent;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The packages' dependencies: no cycles, and the demo reached only from where it is started; every bus message
 * is a record of the contract.
 */
class ArchitectureTest {

  private static JavaClasses main;

  @BeforeAll
  static void importMain() {
    main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("dev.sqlagent");
  }

  @Test
  void packagesAreFreeOfCycles() {
    slices().matching("dev.sqlagent.(*)..").should().beFreeOfCycles().check(main);
  }

  @Test
  void onlyTheStartUpAndTheCliReachTheDemo() {
    noClasses().that().resideOutsideOfPackages("dev.sqlagent.demo..", "dev.sqlagent.cli..")
        .and().doNotHaveFullyQualifiedName("dev.sqlagent.Databases")
        .and().doNotHaveFullyQualifiedName("dev.sqlagent.MainVerticle")
        .should().dependOnClassesThat().resideInAPackage("dev.sqlagent.demo..")
        .check(main);
  }

  /**
   * The same in the sources: a constant of the demo's (its notes' resource name) is inlined by the compiler,
   * so the classes alone do not show that a class names it.
   */
  @Test
  void noSourceOutsideTheStartUpAndTheCliNamesTheDemo() throws IOException {
    Path root = Path.of("src/main/java/dev/sqlagent");
    List<String> naming = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        String rel = root.relativize(f).toString().replace('\\', '/');
        if (rel.startsWith("demo/") || rel.startsWith("cli/") || rel.equals("Databases.java") || rel.equals("MainVerticle.java")) {
          continue;
        }
        if (Files.readString(f).contains("dev.sqlagent.demo")) naming.add(rel);
      }
    }
    assertThat(naming).as("main classes naming dev.sqlagent.demo").isEmpty();
  }

  /**
   * A bus message built key by key where it is sent, published or replied, e.g.
   * {@code eventBus().request(Addresses.X, new JsonObject().put("run_id", id))} or
   * {@code msg.reply(new JsonObject().put(...))}.
   */
  static final Pattern BUILT_BY_KEY = Pattern.compile(
      "\\.(<[^<>]*>)?(request|send|publish)\\(\\s*Addresses\\.\\w+(\\([^()]*\\))?\\s*,\\s*new JsonObject\\(\\)\\s*\\.put"
          + "|\\.reply\\(\\s*new JsonObject\\(\\)\\s*\\.put");

  /**
   * Every message that crosses an event-bus address is a record in {@code contract} with its own JSON: no
   * class outside {@code contract} and {@code bus} builds one key by key where it sends, publishes or replies.
   */
  @Test
  void busMessagesAreBuiltOnlyByTheirContractRecords() throws IOException {
    Path root = Path.of("src/main/java/dev/sqlagent");
    List<String> building = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        String rel = root.relativize(f).toString().replace('\\', '/');
        if (rel.startsWith("contract/") || rel.startsWith("bus/")) continue;
        String text = Files.readString(f);
        Matcher m = BUILT_BY_KEY.matcher(text);
        while (m.find()) {
          int line = (int) text.substring(0, m.start()).chars().filter(c -> c == '\n').count() + 1;
          building.add(rel + ":" + line);
        }
      }
    }
    assertThat(building).as("bus messages built key by key outside contract").isEmpty();
  }

  /** The pattern itself: what it must catch and what it must leave alone. */
  @Test
  void theBuiltByKeyPatternCatchesWhatItIsFor() {
    assertThat(BUILT_BY_KEY.matcher("vertx.eventBus().publish(Addresses.STOP_WORK, new JsonObject().put(\"run_id\", id));")
        .find()).isTrue();
    assertThat(BUILT_BY_KEY.matcher("bus.<JsonObject>request(Addresses.clusterNode(id), new JsonObject()\n  .put(\"a\", 1))")
        .find()).isTrue();
    assertThat(BUILT_BY_KEY.matcher("msg.reply(new JsonObject().put(\"kept\", false));").find()).isTrue();
    assertThat(BUILT_BY_KEY.matcher("msg.reply(new Kept(null, false).toJson());").find()).isFalse();
    assertThat(BUILT_BY_KEY.matcher("msg.reply(new JsonObject());").find()).isFalse();
  }
}
