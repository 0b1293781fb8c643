package dev.sqlagent;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.function.Predicate;
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
   * One door to the target's data: apart from the gate ({@code execution}) and the catalogue service
   * ({@code catalogue}, which holds the one reader of data outside the gate, {@code TargetReader}), no code opens a
   * connection to the target: none calls the agent role's connection methods of {@code db.Target}, nor connects with a
   * URL itself (the state store, the demo it builds and {@code db}'s own plumbing excepted). A failure names each
   * offending call.
   */
  @Test
  void onlyTheGateTheCatalogueAndTheReaderConnectToTheTarget() {
    noClasses().that().resideOutsideOfPackages("dev.sqlagent.execution..", "dev.sqlagent.catalogue..",
            "dev.sqlagent.demo..", "dev.sqlagent.db..")
        .should().callMethodWhere(DescribedPredicate.describe("opens a connection of the agent role to the target",
            call -> call.getTargetOwner().isEquivalentTo(dev.sqlagent.db.Target.class)
                && List.of("roConnection", "roOptions").contains(call.getName())))
        .because("every read of the target's data outside the gate goes through catalogue.TargetReader")
        .check(main);
    noClasses().that().resideOutsideOfPackages("dev.sqlagent.execution..", "dev.sqlagent.catalogue..",
            "dev.sqlagent.demo..", "dev.sqlagent.db..", "dev.sqlagent.state..")
        .should().callMethodWhere(DescribedPredicate.describe("connects with a URL of its own",
            call -> call.getTargetOwner().isEquivalentTo(dev.sqlagent.db.PgUrl.class)
                && List.of("connect", "options").contains(call.getName())))
        .because("every read of the target's data outside the gate goes through catalogue.TargetReader")
        .check(main);
  }

  /**
   * A bus message built key by key where it is sent, published or replied, e.g.
   * {@code eventBus().request(Addresses.X, new JsonObject().put("run_id", id))} or
   * {@code msg.reply(new JsonObject().put(...))}, or read key by key where it arrives.
   */
  static final Pattern BUILT_BY_KEY = Pattern.compile(
      "\\.(<[^<>]*>)?(request|send|publish)\\(\\s*Addresses\\.\\w+(\\([^()]*\\))?\\s*,\\s*new JsonObject\\(\\)\\s*\\.put"
          + "|\\.reply\\(\\s*new JsonObject\\(\\)\\s*\\.put"
          // ... or read key by key where it arrives: msg.body().getString("run_id")
          + "|\\.body\\(\\)\\s*\\.get\\w*\\(\\s*\"");

  /**
   * Every message that crosses an event-bus address is a record in {@code contract} with its own JSON: no
   * class outside {@code contract} and {@code bus} builds one key by key where it sends, publishes or replies, or
   * reads one key by key where it receives it.
   */
  @Test
  void busMessagesAreBuiltAndReadOnlyByTheirContractRecords() throws IOException {
    List<String> building = mainLinesMatching(BUILT_BY_KEY, rel -> rel.startsWith("contract/") || rel.startsWith("bus/"));
    assertThat(building).as("bus messages built or read key by key outside contract").isEmpty();
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
    assertThat(BUILT_BY_KEY.matcher("String id = msg.body().getString(\"run_id\");").find()).isTrue();
    assertThat(BUILT_BY_KEY.matcher("Answer a = Answer.fromJson(msg.body());").find()).isFalse();
  }

  /** Doubling a quote to write a name or a value into SQL text: {@code replace("\"", "\"\"")} or {@code replace("'", "''")}. */
  static final Pattern QUOTES_SQL = Pattern.compile(
      "\\.replace\\(\\s*\"\\\\\"\"\\s*,\\s*\"\\\\\"\\\\\"\"\\s*\\)|\\.replace\\(\\s*\"'\"\\s*,\\s*\"''\"\\s*\\)");

  /**
   * One place quotes names and values into SQL text ({@code db/Identifiers}); a second helper is how a name with a
   * quote in it ends up quoted one way in the gate and another in the prompt. YAML's quoting in the learned notes
   * fragment is YAML's, not SQL's.
   */
  @Test
  void onlyIdentifiersQuotesIntoSql() throws IOException {
    List<String> quoting = mainLinesMatching(QUOTES_SQL,
        rel -> rel.equals("db/Identifiers.java") || rel.equals("learn/NotesFragment.java"));
    assertThat(quoting).as("SQL quoting outside db/Identifiers").isEmpty();
  }

  @Test
  void theQuotingPatternCatchesWhatItIsFor() {
    assertThat(QUOTES_SQL.matcher("return \"\\\"\" + name.replace(\"\\\"\", \"\\\"\\\"\") + \"\\\"\";").find()).isTrue();
    assertThat(QUOTES_SQL.matcher("\"'\" + v.replace(\"'\", \"''\") + \"'\"").find()).isTrue();
    assertThat(QUOTES_SQL.matcher("s.replace(\"\\\\\", \"\\\\\\\\\")").find()).isFalse();
    assertThat(QUOTES_SQL.matcher("Identifiers.literal(v)").find()).isFalse();
  }

  /** {@code file:line} of every match of {@code pattern} in the main sources, except in the files {@code skip} names. */
  private static List<String> mainLinesMatching(Pattern pattern, Predicate<String> skip) throws IOException {
    Path root = Path.of("src/main/java/dev/sqlagent");
    List<String> found = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        String rel = root.relativize(f).toString().replace('\\', '/');
        if (skip.test(rel)) continue;
        String text = Files.readString(f);
        Matcher m = pattern.matcher(text);
        while (m.find()) {
          int line = (int) text.substring(0, m.start()).chars().filter(c -> c == '\n').count() + 1;
          found.add(rel + ":" + line);
        }
      }
    }
    return found;
  }
}
