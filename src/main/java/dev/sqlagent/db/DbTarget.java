package dev.sqlagent.db;

import io.vertx.pgclient.PgConnectOptions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

/**
 * One PostgreSQL server and database, and the three credentials that reach it: the admin (setup only),
 * {@code sql_agent_ro} (every agent query) and {@code sql_agent_log} (the query log).
 */
public record DbTarget(AdminUrl admin, Credentials.RolePasswords roles) {

  public static final String RO_ROLE = "sql_agent_ro";
  public static final String LOG_ROLE = "sql_agent_log";

  public String database() {
    return admin.database();
  }

  /** Admin JDBC connection to the given database (setup and status only: blocking, off any event loop). */
  public Connection adminConnection(String database) throws SQLException {
    return jdbc(database, admin.user(), admin.password());
  }

  public Connection roConnection() throws SQLException {
    return jdbc(database(), RO_ROLE, roles.ro());
  }

  public Connection logConnection() throws SQLException {
    return jdbc(database(), LOG_ROLE, roles.log());
  }

  private Connection jdbc(String database, String user, String password) throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", user);
    if (password != null) p.setProperty("password", password);
    p.setProperty("ApplicationName", "sql-agent-setup");
    p.setProperty("connectTimeout", "10");
    return DriverManager.getConnection(
        "jdbc:postgresql://" + admin.host() + ":" + admin.port() + "/" + database, p);
  }

  /** Reactive connect options for the agent's read-only role. */
  public PgConnectOptions roOptions() {
    return options(RO_ROLE, roles.ro()).addProperty("application_name", "sql-agent");
  }

  /** Reactive connect options for the log-writing role. */
  public PgConnectOptions logOptions() {
    return options(LOG_ROLE, roles.log()).addProperty("application_name", "sql-agent-log");
  }

  private PgConnectOptions options(String user, String password) {
    return new PgConnectOptions()
        .setHost(admin.host()).setPort(admin.port()).setDatabase(database())
        .setUser(user).setPassword(password);
  }
}
