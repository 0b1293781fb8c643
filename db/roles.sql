-- The demo's agent role, and nothing more than it needs. The demo setup runs this as the embedded server's
-- admin after every rebuild; ${db} and ${ro_password} are filled in (quoted). The demo then proves the role
-- by attempting what it must not do (in its own database only: a user's database is never written).

DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'sql_agent_ro') THEN CREATE ROLE sql_agent_ro; END IF;
END $$;

SET password_encryption = 'scram-sha-256';

-- sql_agent_ro: every agent query. Read-only by default, short timeouts, a bounded number of sessions.
ALTER ROLE sql_agent_ro WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION NOBYPASSRLS
  CONNECTION LIMIT 20 PASSWORD ${ro_password};
ALTER ROLE sql_agent_ro SET default_transaction_read_only = on;
ALTER ROLE sql_agent_ro SET statement_timeout = '5s';
ALTER ROLE sql_agent_ro SET lock_timeout = '1s';
ALTER ROLE sql_agent_ro SET idle_in_transaction_session_timeout = '10s';

-- Nothing for PUBLIC: no TEMP, no CONNECT, no CREATE on the schema (PostgreSQL before 15 granted it).
REVOKE ALL ON DATABASE ${db} FROM PUBLIC;
GRANT CONNECT ON DATABASE ${db} TO sql_agent_ro;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
REVOKE ALL ON SCHEMA public FROM sql_agent_ro;
GRANT USAGE ON SCHEMA public TO sql_agent_ro;

-- Start from nothing on every table and sequence, then grant exactly what is needed.
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM PUBLIC, sql_agent_ro;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM PUBLIC, sql_agent_ro;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO sql_agent_ro;

-- Tables the admin re-creates later (a re-seed) stay readable by the agent, and only readable.
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON TABLES FROM sql_agent_ro;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO sql_agent_ro;

-- Functions that act outside a read-only transaction or outlive it: a session advisory lock survives
-- ROLLBACK, large objects and set_config(.., false) change state, pg_notify signals other sessions,
-- pg_sleep holds a connection. The gate refuses them statically; this makes the database refuse too.
DO $$
DECLARE f record;
BEGIN
  FOR f IN
    SELECT p.oid::regprocedure AS sig
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = 'pg_catalog'
      AND (p.proname LIKE 'pg\_advisory%' OR p.proname LIKE 'pg\_try\_advisory%'
           OR p.proname LIKE 'lo\_%' OR p.proname IN ('lowrite', 'loread')
           OR p.proname IN ('set_config', 'pg_notify', 'pg_sleep', 'pg_sleep_for', 'pg_sleep_until',
                            'query_to_xml', 'query_to_xmlschema', 'query_to_xml_and_xmlschema',
                            'cursor_to_xml', 'cursor_to_xmlschema', 'ts_stat',
                            'pg_cancel_backend', 'pg_terminate_backend', 'pg_stat_reset',
                            'txid_current', 'pg_current_xact_id'))
  LOOP
    EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', f.sig);
  END LOOP;
END $$;
