#!/bin/sh
# Container entry point: apply database migrations, then run the command (gunicorn by default).
# Instances starting together take turns (acme/management/commands/migrate.py); still, with
# several instances on one database, set MIGRATE_ON_START=0 on them and run
# `python manage.py migrate` once per release, before they take traffic (docs/deploy.md).
set -eu
cd "$(dirname "$0")/.."
if [ "${MIGRATE_ON_START:-1}" != "0" ]; then
    python manage.py migrate --noinput
fi
exec "$@"
