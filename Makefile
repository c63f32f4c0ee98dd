# FabricQuote: `make run` serves the portal, `make test` runs the whole suite.
# Both create .venv with the machine's python3 (3.11+) and install what they need.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000
PYTEST_ARGS ?=
# `make test` runs the suite in this many pytest-xdist processes (2: one per core of the 2-core
# machines it is timed on); each has its own test database and Redis database (tests/conftest.py).
# PYTEST_WORKERS=0 runs it in one process (pdb, print debugging).
# `--dist worksteal` gives each worker half of the tests in pytest-django's order (tests in a
# rolled-back transaction, then tests that commit and flush the tables, then tests without the
# database), and a worker that runs out takes half of what the other has not started yet; the
# rows the migrations seed come back after every flush (tests/migration_rows.py). `--dist load`
# hands tests out in chunks, and left a worker holding the long browser tests while the other
# sat done: about 75 s of a 401 s run of the whole suite on one core (its junit times replayed
# through xdist's scheduler: worksteal ends 35-40 s sooner). 483 tests (the share pages, their
# browser tests, the catalog), three A/B rounds on the loaded machine: 160, 123, 158 s against
# 91, 112, 113 s.
PYTEST_WORKERS ?= 2

.PHONY: run test lint check-system install install-dev migrate demo signing-dev worker beat clean messages

run: install migrate demo signing-dev  ## set up (idempotent) and serve on http://127.0.0.1:8000
	@echo "Serving FabricQuote on http://$(HOST):$(PORT)/  (Ctrl-C stops)"
	$(BIN)/python manage.py runserver $(HOST):$(PORT)

# The suite keeps its compiled modules (__pycache__, gitignored) from one run to the next even
# where the environment asks Python not to write them (PYTHONDONTWRITEBYTECODE): each worker
# compiling every module and rewriting the tests' asserts afresh took 7-12 s more of every run
# before the first test (loaded 2-core machine: first test at 15-27 s, 8-10 s with them kept).
test: install-dev  ## the whole suite (uses DATABASE_URL / REDIS_URL when set)
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist worksteal $(PYTEST_ARGS)

lint: install-dev  ## ruff (checks and formatting), then the layering contracts (pyproject.toml [tool.importlinter])
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

check-system:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' || \
	  { echo "FabricQuote needs Python 3.11 or newer as '$(PYTHON)' (make PYTHON=python3.12 ...)."; exit 1; }
	@$(PYTHON) -c 'import ensurepip' 2>/dev/null || \
	  { echo "Python's venv module is missing: on Debian/Ubuntu run 'apt-get install python3-venv'."; exit 1; }
	@ldconfig -p 2>/dev/null | grep -q libpango-1.0 || \
	  echo "note: Pango is missing, PDF proposals will not render: apt-get install libpango-1.0-0 libpangoft2-1.0-0"
	@command -v fc-list >/dev/null && fc-list :lang=zh | grep -q . || \
	  echo "note: no Chinese font found, Chinese PDFs would show boxes: apt-get install fonts-noto-cjk"

$(VENV)/.installed: pyproject.toml | check-system
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e .
	@touch $@

$(VENV)/.installed-dev: $(VENV)/.installed pyproject.toml
	$(BIN)/pip install --quiet -e '.[dev]'
	@touch $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

migrate: install  ## the schema, then snapshots made under an older engine (nothing to do, usually)
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py snapshots_refresh

demo: install  ## catalog and demo sign-ins; running it twice changes nothing
	$(BIN)/python manage.py load_catalog
	$(BIN)/python manage.py setup_demo

signing-dev: install  ## the self-signed certificate development signs signed copies with (var/signing/), once
	$(BIN)/python manage.py signing_certificate_dev

worker: install signing-dev  ## a Celery worker (needs REDIS_URL)
	$(BIN)/celery -A portal worker --loglevel INFO

beat: install
	$(BIN)/celery -A portal beat --loglevel INFO

messages: install  ## refresh the Chinese UI catalog after changing strings
	$(BIN)/python manage.py makemessages --locale zh_Hans --ignore '.venv/*' --ignore 'var/*'
	$(BIN)/python manage.py compilemessages --locale zh_Hans --ignore '.venv/*'

clean:
	rm -rf $(VENV) var
