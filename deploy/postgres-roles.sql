-- The role each sidecar reads with: it can connect and read the service's tables, and nothing else. Run on the
-- primary as a superuser, in the service's database (psql -d bio -f deploy/postgres-roles.sql); the standbys get it
-- by replication. Set a password (or use certificates) for connections that are not on loopback:
--   ALTER ROLE bio_reader PASSWORD '…';
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'bio_reader') THEN
    CREATE ROLE bio_reader LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION;
  END IF;
END $$;
DO $$
BEGIN
  EXECUTE format('GRANT CONNECT ON DATABASE %I TO bio_reader', current_database());
END $$;
GRANT USAGE ON SCHEMA public TO bio_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO bio_reader;
-- Tables a later migration creates are readable too.
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO bio_reader;
ALTER ROLE bio_reader SET default_transaction_read_only = on;
