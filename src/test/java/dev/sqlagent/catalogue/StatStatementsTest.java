package dev.sqlagent.catalogue;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What status and learning say about pg_stat_statements, for each state a server can be in. */
class StatStatementsTest {

  @Test
  void eachStateSaysWhatEnablesTheNext() {
    var missing = StatStatements.describe(false, null, "", false, "reader");
    assertThat(missing.readable()).isFalse();
    assertThat(missing.detail()).contains("shared_preload_libraries", "CREATE EXTENSION pg_stat_statements",
        "GRANT pg_read_all_stats TO reader");
    // shared_preload_libraries not visible to the role: no claim about it
    assertThat(StatStatements.describe(false, null, null, false, "reader").detail())
        .doesNotContain("shared_preload_libraries").contains("CREATE EXTENSION");
    var unloaded = StatStatements.describe(true, "public", "auto_explain", true, "reader");
    assertThat(unloaded.readable()).isFalse();
    assertThat(unloaded.detail()).contains("not loaded", "shared_preload_libraries");
    var own = StatStatements.describe(true, "public", "pg_stat_statements", false, "reader");
    assertThat(own.readable()).isTrue();
    assertThat(own.everyone()).isFalse();
    assertThat(own.detail()).contains("own statements only", "GRANT pg_read_all_stats TO reader");
    var all = StatStatements.describe(true, "monitoring", "pg_stat_statements,auto_explain", true, "reader");
    assertThat(all.everyone()).isTrue();
    assertThat(all.statementsSql(10)).contains("\"monitoring\".pg_stat_statements", "current_database()", "LIMIT 10");
  }
}
