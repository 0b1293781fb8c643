package dev.sqlagent.budget;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Each user's use per day in the state store ({@code budget_usage}, db/state/budget_usage.sql). The day is the state
 * store's (UTC), so every instance sharing it agrees when a day ends; each change is one atomic upsert, so two
 * instances count into the same row and a question is admitted only while the row is under every limit.
 */
final class UsageRepository {

  /** One user's day. */
  record Day(String user, LocalDate day, long questions, long tokens, double costUsd, List<String> groups) {}

  private static final String TODAY = "(now() AT TIME ZONE 'UTC')::date";
  /**
   * Counts one question if the day's row is under every limit given (null: none), in one statement: two instances
   * admitting at once cannot both take the last question. No row back: refused.
   */
  private static final String COUNT = "INSERT INTO budget_usage AS u (user_name, day, questions, groups) VALUES ($1, " + TODAY
      + ", 1, $2) ON CONFLICT (user_name, day) DO UPDATE SET questions = u.questions + 1, groups = EXCLUDED.groups"
      + " WHERE ($3::bigint IS NULL OR u.questions < $3) AND ($4::bigint IS NULL OR u.tokens < $4)"
      + " AND ($5::float8 IS NULL OR u.cost_usd < $5) RETURNING u.user_name, u.day, u.questions, u.tokens, u.cost_usd, u.groups";
  private static final String ADD_MODEL_USE = "INSERT INTO budget_usage AS u (user_name, day, tokens, cost_usd) VALUES ($1, "
      + TODAY + ", $2, $3) ON CONFLICT (user_name, day) DO UPDATE SET tokens = u.tokens + EXCLUDED.tokens,"
      + " cost_usd = u.cost_usd + EXCLUDED.cost_usd";
  private static final String REFUND = "UPDATE budget_usage SET questions = questions - 1 WHERE user_name = $1 AND day = "
      + TODAY + " AND questions > 0";
  private static final String ONE = "SELECT $1::text AS user_name, d.day, coalesce(u.questions, 0) AS questions,"
      + " coalesce(u.tokens, 0) AS tokens, coalesce(u.cost_usd, 0) AS cost_usd, coalesce(u.groups, '{}') AS groups"
      + " FROM (SELECT " + TODAY + " AS day) d LEFT JOIN budget_usage u ON u.user_name = $1 AND u.day = d.day";
  private static final String ALL = "SELECT u.user_name, u.day, u.questions, u.tokens, u.cost_usd, u.groups"
      + " FROM budget_usage u WHERE u.day = " + TODAY + " ORDER BY u.user_name";
  private static final String DAY = "SELECT " + TODAY + " AS day";

  private final Pool pool;

  /** @param pool the state store's shared owner pool */
  UsageRepository(Pool pool) {
    this.pool = pool;
  }

  /** The day after counting one question, or empty when a limit is reached (nothing counted). */
  Future<Optional<Day>> count(String user, List<String> groups, Double questions, Double tokens, Double costUsd) {
    Tuple t = Tuple.of(user, groups.toArray(new String[0]), whole(questions), whole(tokens)).addValue(costUsd);
    return pool.preparedQuery(COUNT).execute(t).map(rows -> days(rows).stream().findFirst());
  }

  /** Gives back one of today's questions (admitted, but the service never started it). */
  Future<Void> refund(String user) {
    return pool.preparedQuery(REFUND).execute(Tuple.of(user)).mapEmpty();
  }

  /** Adds an answer's model tokens and cost to today's row. */
  Future<Void> addModelUse(String user, long tokens, double costUsd) {
    return pool.preparedQuery(ADD_MODEL_USE).execute(Tuple.of(user, tokens, costUsd)).mapEmpty();
  }

  /** One user's day so far (zeros when nothing was counted today). */
  Future<Day> today(String user) {
    return pool.preparedQuery(ONE).execute(Tuple.of(user)).map(rows -> days(rows).get(0));
  }

  /** Every user counted today. */
  Future<List<Day>> todayAll() {
    return pool.query(ALL).execute().map(UsageRepository::days);
  }

  /** Today, as the state store counts it. */
  Future<LocalDate> day() {
    return pool.query(DAY).execute().map(rows -> rows.iterator().next().getLocalDate("day"));
  }

  private static Long whole(Double limit) {
    return limit == null ? null : (long) Math.floor(limit);
  }

  private static List<Day> days(RowSet<Row> rows) {
    List<Day> out = new ArrayList<>();
    for (Row r : rows) {
      String[] groups = r.getArrayOfStrings("groups");
      out.add(new Day(r.getString("user_name"), r.getLocalDate("day"), r.getLong("questions"), r.getLong("tokens"),
          r.getDouble("cost_usd"), groups == null ? List.of() : Arrays.asList(groups)));
    }
    return out;
  }
}
