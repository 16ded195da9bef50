#!/bin/sh
# The compose file's PostgreSQL (deploy/compose.yaml, issue 61): PostgreSQL 15 from Debian, its data in a volume. The
# first start makes the cluster (the superuser's password from POSTGRES_PASSWORD, password logins over the network),
# the service's database `bio`, and the sidecars' read-only role (deploy/postgres-roles.sql) with the password
# BIO_READER_PASSWORD; every start then runs the server in the foreground. Baked into the image by `npm run image`.
set -eu
bin=/usr/lib/postgresql/15/bin
data=/var/lib/postgresql/data
: "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD (the compose folder's .env)}"
: "${BIO_READER_PASSWORD:?set BIO_READER_PASSWORD (the compose folder's .env)}"
if [ ! -s "$data/PG_VERSION" ]; then
  umask 077
  printf '%s\n' "$POSTGRES_PASSWORD" >/tmp/superuser-password
  "$bin/initdb" --pgdata="$data" --username=postgres --pwfile=/tmp/superuser-password --auth-local=trust \
    --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >/dev/null
  rm -f /tmp/superuser-password
  printf "listen_addresses = '*'\n" >>"$data/postgresql.conf"
  printf 'host all all all scram-sha-256\n' >>"$data/pg_hba.conf"
  "$bin/pg_ctl" --pgdata="$data" --options="-c listen_addresses='' -k /tmp" --wait --silent start
  "$bin/psql" --host=/tmp --username=postgres --quiet --set=ON_ERROR_STOP=1 --command='CREATE DATABASE bio'
  "$bin/psql" --host=/tmp --username=postgres --quiet --set=ON_ERROR_STOP=1 --dbname=bio \
    --file=/usr/local/share/bio/postgres-roles.sql
  # psql's :'name' quotes the value as a literal: a password is never SQL.
  printf "ALTER ROLE bio_reader PASSWORD :'password';\n" |
    "$bin/psql" --host=/tmp --username=postgres --quiet --set=ON_ERROR_STOP=1 --dbname=bio \
      --set=password="$BIO_READER_PASSWORD"
  "$bin/pg_ctl" --pgdata="$data" --mode=fast --wait --silent stop
fi
exec "$bin/postgres" -D "$data" -k /tmp
