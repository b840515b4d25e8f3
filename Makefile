# Two commands for a fresh machine (see README.md):
#   make run    install, migrate, load the demo catalog, serve with gunicorn
#   make test   install everything (Python packages, Debian's chromium, PostgreSQL, Redis, nginx, Node) and run every test
#               (test-package first: the app's wheel in a second shop on Django 5.2 and 6, via nox)
# Not part of make test:
#   make bench  load the site under gunicorn with wrk, compare every case with a floor
#               (bench/run; docs/performance.md; writes bench/results/latest.json)

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
WORKERS ?= 2
# pytest-xdist processes of `make test` (--dist load keeps pytest-django's order in each: the
# rolled-back tests before the ones that flush the tables).
PYTEST_WORKERS ?= 2

.PHONY: run test test-package bench install install-dev system-deps migrate demo serve docs-screenshots docs-api docs-audit clean

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
	$(BIN)/python manage.py ensure_superuser

serve: install
	$(BIN)/python manage.py collectstatic --noinput --verbosity 0
	$(BIN)/python manage.py site_banner --host $(HOST) --port $(PORT)
	HOST=$(HOST) PORT=$(PORT) WORKERS=$(WORKERS) $(BIN)/gunicorn --config deploy/gunicorn.conf.py acme.wsgi

run: demo serve

test: install-dev system-deps test-package
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist load $(PYTEST_ARGS)

test-package: install-dev
	$(BIN)/nox

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
