package dev.sqlagent.execution;

import dev.sqlagent.contract.GateError;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.catalogue.Functions;
import dev.sqlagent.catalogue.Functions.Fn;
import dev.sqlagent.config.AppConfig.FunctionName;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The function rule's name resolution over a catalogue written by hand: which calls resolve to a user function, by
 * search path, qualification and argument count; overloads shared with built-ins; operators, casts and attribute
 * notation. (OwnFunctionsTest runs the same rule against a real database.)
 */
class FunctionRuleTest {

  static Fn fn(long oid, String schema, String name, String args, int nargs, int ndefaults, String escape, boolean onPath) {
    return new Fn(oid, schema, name, schema + "." + name + "(" + args + ")", "f", "v", nargs, ndefaults, false, null,
        "plpgsql", false, escape, escape == null, "PUBLIC", onPath);
  }

  static final Fn TWICE = fn(20_001, "public", "twice", "integer", 1, 0, null, true);
  static final Fn ROUND_FLOAT = fn(20_002, "public", "round", "double precision, integer", 2, 0, null, true);
  static final Fn LOWER3 = fn(20_003, "public", "lower", "text, integer, integer", 3, 0, null, true);
  static final Fn HIDDEN = fn(20_004, "archive", "twice", "integer", 1, 0, null, false);
  static final Fn WRITER = fn(20_005, "public", "upper", "text, text", 2, 0, "written in the untrusted language plpython3u", true);
  static final Fn TOUCH = fn(20_006, "public", "touch", "text, text", 2, 0, null, true);
  static final Fn DEFAULTS = fn(20_007, "public", "fq", "date, integer", 2, 1, null, true);
  static final Fn ROWFN = fn(20_008, "public", "label", "customers", 1, 0, null, true);
  static final Fn TRIM = fn(20_009, "public", "trim", "text", 1, 0, null, true);

  static final Functions FUNCTIONS = functions(WRITER);

  /** The catalogue with {@code writer}: executable by the role or not (the proof holds only when not). */
  static Functions functions(Fn writer) {
    return new Functions(List.of(TWICE, ROUND_FLOAT, LOWER3, HIDDEN, writer, TOUCH, DEFAULTS, ROWFN, TRIM),
      List.of(new Functions.Op("===", "public", false, TOUCH.oid(), true), new Functions.Op("=", "public", false, TOUCH.oid(), true)),
      Set.of("=", "<", " -"),
      Map.of("round", List.of(new Functions.Arity(1, 0, false), new Functions.Arity(2, 0, false)),
          "lower", List.of(new Functions.Arity(1, 0, false)), "upper", List.of(new Functions.Arity(1, 0, false))),
      List.of(new Functions.TypeUse("public", "checked", true, TWICE.oid())), List.of());
  }

  static final VisibleSchema SCHEMA = VisibleSchema.of(List.of(new VisibleSchema.Table("public", "customers", true,
      List.of(new VisibleSchema.Column("id", "integer"), new VisibleSchema.Column("name", "text")))), Set.of());

  static Optional<GateError> check(String sql, FunctionName... allowed) throws Exception {
    return new FunctionRule(FUNCTIONS, List.of(allowed)).check(PgLexer.lex(sql).tokens(), SCHEMA);
  }

  @Test
  void aUserFunctionIsRefusedByAnySpellingWithHowToAllowIt() throws Exception {
    for (String sql : List.of("SELECT twice(1)", "SELECT public.twice(1)", "SELECT \"twice\"(1)", "SELECT TWICE(1)",
        "SELECT \"public\".\"twice\"(id) FROM customers", "SELECT * FROM customers WHERE twice(id) > 2")) {
      Optional<GateError> e = check(sql);
      assertThat(e).as(sql).isPresent();
      assertThat(e.get().message()).as(sql).contains("public.twice(integer) is a user function");
      assertThat(e.get().hint()).contains("SQLAGENT_ALLOW_FUNCTIONS").contains("public.twice");
    }
    assertThat(check("SELECT twice(1)", FunctionName.parse("public.twice"))).isEmpty();
    assertThat(check("SELECT twice(1)", FunctionName.parse("PUBLIC.TWICE"))).isEmpty();
  }

  @Test
  void namesResolveByPathSchemaAndArgumentCount() throws Exception {
    // archive is not on the path: a bare name does not find it, a qualified one does.
    assertThat(check("SELECT archive.twice(1)").orElseThrow().message()).contains("archive.twice(integer)");
    // Built-ins with the same name and a different argument count are not the user's function.
    assertThat(check("SELECT lower(name), round(2.5) FROM customers")).isEmpty();
    assertThat(check("SELECT lower(name, 1, 2) FROM customers").orElseThrow().message()).contains("public.lower");
    // Same count as a built-in: only types would decide, and an ordinary user function is let through ...
    assertThat(check("SELECT round(avg(id), 2) FROM customers")).isEmpty();
    // ... but pg_catalog. never means the user's.
    assertThat(check("SELECT pg_catalog.lower(name, 1, 2) FROM customers")).isEmpty();
    // Defaults: fq takes one or two arguments.
    assertThat(check("SELECT fq(now()::date)")).isPresent();
    assertThat(check("SELECT fq(now()::date, 3)")).isPresent();
    assertThat(check("SELECT fq(now()::date, 3, 4)")).isEmpty();
    // TRIM( is syntax for pg_catalog's btrim: a user function named trim is reached only quoted or qualified.
    assertThat(check("SELECT trim(name) FROM customers")).isEmpty();
    assertThat(check("SELECT \"trim\"(name) FROM customers")).isPresent();
    assertThat(check("SELECT public.trim(name) FROM customers")).isPresent();
    // A name that is not a call (a column, an alias) is not a function.
    assertThat(check("SELECT id AS twice FROM customers")).isEmpty();
  }

  @Test
  void anEscapeCapableOneIsRefusedEvenBesideABuiltInAndWhateverIsAllowed() throws Exception {
    Optional<GateError> e = check("SELECT upper(name, 'x') FROM customers", FunctionName.parse("public.upper"));
    assertThat(e.orElseThrow().message()).contains("public.upper(text, text) may not be called: it can act outside the "
        + "read-only transaction (written in the untrusted language plpython3u)");
    assertThat(check("SELECT upper(name) FROM customers")).isEmpty();
  }

  @Test
  void operatorsCastsAndAttributeNotation() throws Exception {
    assertThat(check("SELECT 'a' === 'b'").orElseThrow().message()).contains("The operator === runs public.touch(text, text)");
    assertThat(check("SELECT 'a' OPERATOR(public.===) 'b'")).isPresent();
    // = is the core's too: only an escape-capable user one would refuse it.
    assertThat(check("SELECT 1 = 1")).isEmpty();
    assertThat(check("SELECT '1'::checked").orElseThrow().message()).contains("A cast to checked runs public.twice(integer)");
    assertThat(check("SELECT CAST('1' AS public.checked)")).isPresent();
    assertThat(check("SELECT count(*) AS checked FROM customers")).isEmpty();
    // c.label is label(c) when customers has no column label.
    assertThat(check("SELECT c.label FROM customers c").orElseThrow().message()).contains("public.label(customers)");
    assertThat(check("SELECT c.name FROM customers c")).isEmpty();
  }

  @Test
  void whenTheRoleMayExecuteAnEscapeCapableFunctionNoUserFunctionIsTakenOnTrust() throws Exception {
    Fn reachable = new Fn(WRITER.oid(), WRITER.schema(), WRITER.name(), WRITER.signature(), "f", "v", 2, 0, false, null,
        "plpython3u", false, WRITER.escape(), true, "PUBLIC", true);
    FunctionRule strict = new FunctionRule(functions(reachable), List.of());
    // Where only types would decide, the user's overload may be the one called, and its body could call the writer.
    assertThat(strict.check(PgLexer.lex("SELECT round(avg(id), 2) FROM customers").tokens(), SCHEMA)).isPresent();
    assertThat(strict.check(PgLexer.lex("SELECT 1 = 1").tokens(), SCHEMA)).isPresent();
    assertThat(strict.check(PgLexer.lex("SELECT lower(name), round(2.5) FROM customers").tokens(), SCHEMA)).isEmpty();
  }

  @Test
  void argumentsAreCountedAtTheTopLevel() throws Exception {
    List<PgLexer.Token> t = PgLexer.lex("f(a, g(b, c), (d, e))").tokens();
    assertThat(FunctionRule.arguments(t, 1)).isEqualTo(3);
    assertThat(FunctionRule.arguments(PgLexer.lex("f()").tokens(), 1)).isZero();
    assertThat(FunctionRule.arguments(PgLexer.lex("f(x ORDER BY y, z)").tokens(), 1)).isEqualTo(-1);
  }
}
