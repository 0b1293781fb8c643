-- sql_agent_log: the query log's writer in the state store, INSERT on one table and nothing more.
-- ${db} and ${log_password} are filled in (as a quoted identifier and literal). The store then proves it.

DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'sql_agent_log') THEN CREATE ROLE sql_agent_log; END IF;
END $$;

-- The owner needs CREATEROLE, not SUPERUSER (a managed service gives no superuser). Such an owner may not even
-- name SUPERUSER, REPLICATION, BYPASSRLS or CREATEDB in ALTER ROLE (PostgreSQL 16+), so those are checked, not
-- set: a freshly created role has none of them, and one that has them was made so by a superuser.
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'sql_agent_log'
             AND (rolsuper OR rolreplication OR rolbypassrls OR rolcreatedb OR rolcreaterole)) THEN
    RAISE EXCEPTION 'the role sql_agent_log has SUPERUSER, REPLICATION, BYPASSRLS, CREATEDB or CREATEROLE: '
      'drop it or remove them (ALTER ROLE sql_agent_log NOSUPERUSER NOREPLICATION NOBYPASSRLS NOCREATEDB NOCREATEROLE)';
  END IF;
END $$;

SET password_encryption = 'scram-sha-256';
ALTER ROLE sql_agent_log WITH LOGIN NOINHERIT CONNECTION LIMIT 5 PASSWORD ${log_password};
ALTER ROLE sql_agent_log SET statement_timeout = '5s';
ALTER ROLE sql_agent_log SET idle_in_transaction_session_timeout = '10s';

-- The state database is the service's own: nothing for PUBLIC (the demo's agent role cannot even connect).
REVOKE ALL ON DATABASE ${db} FROM PUBLIC;
GRANT CONNECT ON DATABASE ${db} TO sql_agent_log;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
REVOKE ALL ON SCHEMA public FROM sql_agent_log;
GRANT USAGE ON SCHEMA public TO sql_agent_log;
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM PUBLIC, sql_agent_log;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM PUBLIC, sql_agent_log;
GRANT INSERT ON agent_query_log TO sql_agent_log;
GRANT USAGE ON SEQUENCE agent_query_log_log_id_seq TO sql_agent_log;
