package dev.sqlagent.execution;

import dev.sqlagent.contract.ErrorType;
import dev.sqlagent.contract.GateError;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The one table: every SQLSTATE the contract names, and an instruction for every repairable type. */
class ErrorTypeTest {

  @ParameterizedTest
  @EnumSource(ErrorType.class)
  void everyRepairableTypeCarriesARepairInstructionAndStrategy(ErrorType type) {
    if (type.repairable()) {
      assertThat(type.repairInstruction()).as(type + " instruction").isNotBlank().hasSizeGreaterThan(40);
      assertThat(type.strategy()).as(type + " strategy").isNotBlank().isNotEqualTo("no_repair");
    } else {
      assertThat(type.strategy()).isEqualTo("no_repair");
    }
  }

  @Test
  void theContractsSqlStatesMapToTheirTypes() {
    Map<String, ErrorType> expected = Map.ofEntries(
        Map.entry("42601", ErrorType.SYNTAX_ERROR), Map.entry("42P10", ErrorType.SYNTAX_ERROR),
        Map.entry("42703", ErrorType.UNKNOWN_COLUMN),
        Map.entry("42P01", ErrorType.UNKNOWN_TABLE), Map.entry("42P02", ErrorType.UNKNOWN_TABLE),
        Map.entry("42809", ErrorType.UNKNOWN_TABLE),
        Map.entry("42702", ErrorType.AMBIGUOUS_COLUMN), Map.entry("42P08", ErrorType.AMBIGUOUS_COLUMN),
        Map.entry("42P09", ErrorType.AMBIGUOUS_COLUMN),
        Map.entry("42883", ErrorType.UNKNOWN_FUNCTION),
        Map.entry("42804", ErrorType.TYPE_MISMATCH), Map.entry("42846", ErrorType.TYPE_MISMATCH),
        Map.entry("22P02", ErrorType.TYPE_MISMATCH), Map.entry("22007", ErrorType.TYPE_MISMATCH),
        Map.entry("22008", ErrorType.TYPE_MISMATCH),
        Map.entry("42803", ErrorType.GROUPING_ERROR),
        Map.entry("42P20", ErrorType.WINDOWING_ERROR),
        Map.entry("21000", ErrorType.CARDINALITY_VIOLATION),
        Map.entry("22012", ErrorType.DIVISION_BY_ZERO),
        Map.entry("57014", ErrorType.TIMEOUT),
        Map.entry("42501", ErrorType.PERMISSION_DENIED), Map.entry("25006", ErrorType.PERMISSION_DENIED),
        Map.entry("40001", ErrorType.RECOVERY_CONFLICT), Map.entry("40P01", ErrorType.RECOVERY_CONFLICT));
    expected.forEach((state, type) -> assertThat(ErrorType.fromSqlState(state)).as(state).isEqualTo(type));
    assertThat(ErrorType.fromSqlState("42p01")).isEqualTo(ErrorType.UNKNOWN_TABLE);
    assertThat(ErrorType.fromSqlState("XX000")).isEqualTo(ErrorType.UNKNOWN);
    assertThat(ErrorType.fromSqlState(null)).isEqualTo(ErrorType.UNKNOWN);
  }

  @Test
  void neverRepairedTypesAreTheOnesTheDesignNames() {
    assertThat(Arrays.stream(ErrorType.values()).filter(t -> !t.repairable()))
        .containsExactlyInAnyOrder(ErrorType.PERMISSION_DENIED, ErrorType.REJECTED, ErrorType.UNKNOWN,
            ErrorType.CANCELLED, ErrorType.RECOVERY_CONFLICT, ErrorType.BUSY);
    assertThat(ErrorType.EMPTY_FILTER.repairable()).isTrue();
    assertThat(ErrorType.MODEL_OUTPUT_INVALID.repairable()).isTrue();
  }

  @ParameterizedTest
  @EnumSource(ErrorType.class)
  void wireNamesRoundTrip(ErrorType type) {
    assertThat(ErrorType.fromWireName(type.wireName())).isEqualTo(type);
    assertThat(type.wireName()).matches("[a-z_]+");
  }

  @Test
  void unknownWireNameIsUnknown() {
    assertThat(ErrorType.fromWireName("no_such_type")).isEqualTo(ErrorType.UNKNOWN);
    assertThat(ErrorType.fromWireName(null)).isEqualTo(ErrorType.UNKNOWN);
  }

  @Test
  void structuredErrorHasEveryField() {
    var json = GateError.of(ErrorType.UNKNOWN_COLUMN, "column x does not exist", "Columns that exist: ...", 8)
        .withSql("SELECT x FROM bills").toJson();
    assertThat(json.fieldNames()).containsExactlyInAnyOrder("ok", "error_type", "message", "hint", "sqlstate",
        "position", "repairable", "sql");
    assertThat(json.getBoolean("ok")).isFalse();
    assertThat(json.getString("error_type")).isEqualTo("unknown_column");
    assertThat(json.getBoolean("repairable")).isTrue();
  }
}
