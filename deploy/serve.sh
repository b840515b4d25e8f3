#!/bin/sh
# gunicorn (deploy/gunicorn.conf.py) and, beside it, the worker of the site's background tasks: the
# UCP order events to platforms' webhooks (agents_protocol/outbound/webhooks.py). Without REDIS_URL
# the tasks are rows of the database, run by django-tasks-db's `db_worker`, which looks for one every
# TASK_WORKER_INTERVAL seconds; with it, RQ's worker (its scheduler runs the retries that wait).
# A signal to this script (docker stop, Ctrl-C) stops both; it exits with gunicorn's status.
set -u
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python}"
if [ -n "${REDIS_URL:-}" ]; then
    "$PYTHON" manage.py rqworker default --job-class django_tasks_rq.Job --with-scheduler &
else
    "$PYTHON" manage.py db_worker --no-reload --no-startup-delay --interval "${TASK_WORKER_INTERVAL:-0.5}" &
fi
worker=$!
"$PYTHON" -m gunicorn --config deploy/gunicorn.conf.py acme.wsgi &
server=$!
trap 'kill -TERM "$server" "$worker" 2>/dev/null' INT TERM
status=0
# A trapped signal ends `wait` early: wait again until gunicorn has stopped.
wait "$server" || status=$?
while kill -0 "$server" 2>/dev/null; do
    status=0
    wait "$server" || status=$?
done
kill -TERM "$worker" 2>/dev/null
wait "$worker"
exit "$status"
