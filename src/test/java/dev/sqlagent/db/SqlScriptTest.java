package dev.sqlagent.db;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SqlScriptTest {

  @Test
  void splitsOnTopLevelSemicolonsOnly() {
    assertThat(SqlScript.split("""
        -- a comment; with a semicolon
        CREATE TABLE a (x text DEFAULT 'a;b');
        DO $$ BEGIN PERFORM 1; PERFORM 2; END $$;
        COMMENT ON TABLE a IS 'it''s; fine';
        """)).containsExactly(
            "CREATE TABLE a (x text DEFAULT 'a;b')",
            "DO $$ BEGIN PERFORM 1; PERFORM 2; END $$",
            "COMMENT ON TABLE a IS 'it''s; fine'");
  }
}
