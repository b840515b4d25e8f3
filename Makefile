# Two commands for a fresh machine (see README.md):
#   make run    install, migrate, load the demo catalog, serve with gunicorn and the task worker (deploy/serve.sh)
#   make test   install everything (Python packages, Debian's chromium, PostgreSQL, Redis, nginx, Node) and run every test
#               (test-package beside pytest: the app's wheel in two other shops, via nox); ends with its wall time.
#               What the tests build from lock files (nox's virtualenvs, the nginx test's image venv, node_modules) is
#               kept in ~/.cache/acme-tests (ACME_TEST_CACHE=DIR moves it), one folder per hash of those files:
#               a fresh clone reuses it, a changed lock file builds anew (tests/build_cache.py).
# Not part of make test:
#   make bench  load the site under gunicorn with wrk, compare every case with a floor
#               (bench/run; docs/performance.md; writes bench/results/latest.json)

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
WORKERS ?= 2
# pytest-xdist processes of `make test`. --dist load keeps pytest-django's order in each (the
# rolled-back tests before the ones that flush the tables); tests/conftest.py's scheduler sends a
# module that starts servers of its own to one worker whole, so its servers start once.
PYTEST_WORKERS ?= 2

.PHONY: run test test-all test-pytest test-package bench install install-dev system-deps migrate demo serve docs-screenshots docs-api docs-audit clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: $(BIN)/python requirements.txt
	$(BIN)/pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed requirements-dev.txt
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $@

install: $(VENV)/.installed

install-dev: $(VENV)/.installed-dev

system-deps:
	scripts/install-system-deps

migrate: install
	$(BIN)/python manage.py migrate --noinput

demo: migrate
	$(BIN)/python manage.py load_demo_catalog
	$(BIN)/python manage.py open_demo_commerce
	$(BIN)/python manage.py ensure_superuser

serve: install
	$(BIN)/python manage.py collectstatic --noinput --verbosity 0
	$(BIN)/python manage.py site_banner --host $(HOST) --port $(PORT)
	HOST=$(HOST) PORT=$(PORT) WORKERS=$(WORKERS) PYTHON=$(BIN)/python deploy/serve.sh

run: demo serve

test:
	@started=$$(date +%s); $(MAKE) --no-print-directory test-all; status=$$?; \
	echo "make test: $$(( $$(date +%s) - started )) s"; exit $$status

# The nox sessions and pytest run at once: both wait on servers and browsers much of the time.
test-all: install-dev system-deps
	$(MAKE) --no-print-directory -j2 --output-sync=target test-package test-pytest

test-pytest: install-dev
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist load $(PYTEST_ARGS)

# noxfile.py's sessions, run at once (each its own virtualenv, data and servers); a session's output
# is printed when it ends. They run niced: pytest, the longer of the two halves of test-all, waits
# on its servers much of the time, and the sessions take the CPU it leaves.
PACKAGE_SESSIONS := package-django52 package-django6 package-oscar-sqlite package-oscar-postgresql

test-package: install-dev
	$(MAKE) --no-print-directory -j$(words $(PACKAGE_SESSIONS)) --output-sync=target $(addprefix nox-,$(PACKAGE_SESSIONS))

nox-%:
	nice -n 10 $(BIN)/nox --session $*

bench: install
	PYTHON=$(BIN)/python bench/run $(BENCH_ARGS)

.PHONY: docs
docs: install-dev  # the docs site on http://127.0.0.1:8001 (mkdocs.yml; built with --strict in make test)
	$(BIN)/mkdocs serve --dev-addr 127.0.0.1:8001

docs-screenshots: install-dev system-deps
	$(BIN)/python scripts/admin_screenshots.py

docs-api: install-dev
	$(BIN)/python scripts/api_examples.py

docs-audit: install-dev
	$(BIN)/python scripts/audit_example.py

clean:
	rm -rf $(VENV) var
