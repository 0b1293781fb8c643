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
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The packages' dependencies: no cycles, and the demo reached only from where it is started. */
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
}
