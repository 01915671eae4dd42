# Two commands do everything on a fresh machine with Python 3.11:
#   make book   set up .venv, ingest DATA (default data/raw), execute the chapters whose inputs changed, build
#               the HTML book
#   make test   set up .venv and Chromium, ingest data/raw, nbval on the published chapters, the tests, the
#               HTML book read in Chromium
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
# data/raw's database (`make book DB=...` builds into another)
PUBLISHED_DB := data/iobook.duckdb
UV_VERSION := 0.13.8

.PHONY: book test test-fast fuzz venv lock bench bench-mlperf bench-book lab clean system-deps dlio-venv collect-dlio

venv: $(VENV)/.installed

# uv installs the lock in ~15 s (pip: 60-90 s); bytecode is compiled because this machine's
# PYTHONDONTWRITEBYTECODE=1 would otherwise leave imports ~2x slower.
$(VENV)/.installed: requirements.lock requirements-overrides.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip --version >/dev/null 2>&1 || $(PY) -m ensurepip --upgrade  # a .venv made by uv has no pip
	$(PY) -m pip install --quiet uv==$(UV_VERSION)
	$(VENV)/bin/uv pip install --python $(PY) --compile-bytecode --quiet -r requirements.lock \
		--override requirements-overrides.txt  # install resolves again: without it jsonschema's extra came back
	$(VENV)/bin/uv pip install --python $(PY) --no-deps --quiet -e .
	touch $@

lock: venv
	$(VENV)/bin/uv pip compile --python-version 3.11 requirements.in --override requirements-overrides.txt -o requirements.lock

# The book on DATA (default data/raw; `make book DATA="dir1 dir2"` for your own logs). Incremental: the
# database persists, unchanged files are not re-parsed, files gone from DATA drop out of the book, and a
# chapter re-executes only when its template, parameters or data changed. Files that fail to parse do not
# stop the build; the Data chapter lists them. `make book ANONYMIZE=1`: a book safe to publish (README).
# DATA other than data/raw never touches the published book: its chapters, site and database go to
# _build/<its folders' names>-<digest>/ (iobook/book/build.py, build_root).
DATA ?= data/raw

book: venv
	$(PY) -m iobook book --data $(DATA) $(if $(DB),--db $(DB)) $(if $(ANONYMIZE),--anonymize)

# Chromium draws the built pages in the page tests (tests/test_book_pages.py, test_book_injection.py); fio runs
# a real checksum collection in tests/test_collectors.py.
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
system-deps:
	command -v chromium >/dev/null && command -v fio >/dev/null || ($(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fio)

# The executed chapters of data/raw in book/ are the published book, committed. nbval executes each of them
# again on data/raw and compares every output with the committed one (volatile parts sanitised by
# tests/nbval-sanitize.cfg; chart specs and numbers compared), so a change that moves a published number fails
# here until the commit that makes it also updates the chapter (`make book`). No `make book` here: each
# chapter runs once on data/raw (nbval's run, before the rest: testpaths), once on each other test database,
# and the HTML is built from the committed chapters for the page tests (conftest.book_site). data/raw is
# ingested into $(PUBLISHED_DB) once, by conftest.pytest_sessionstart, before the workers start.
# TEST_WORKERS pytest-xdist processes share the tests a file at a time (the published chapters and the page tests in
# one of them, in that order: conftest.PUBLISHED_GROUP). One process kept ~1 core busy: 2 took the suite from
# 11.9 to 6.8 minutes on this 2-core machine (2026-11-26).
TEST_WORKERS ?= 2
# The sanitize file by its absolute path: each test process works in a folder of its own (conftest.own_working_folder).
test: venv system-deps
	$(PY) -m compileall -q iobook  # each of the ~50 kernels imports it (PYTHONDONTWRITEBYTECODE=1 here)
	$(PY) -m pytest -n $(TEST_WORKERS) --nbval --nbval-sanitize-with "$(CURDIR)/tests/nbval-sanitize.cfg"

# The tests that run no kernel, build no book and drive no browser or real tool (the others carry the `slow`
# marker): parsers, statistics, the evidence model, every study's report on a tiny database. Under a minute.
test-fast: venv
	$(PY) -m pytest -n $(TEST_WORKERS) -m "not slow" -q tests

# Every parser and ingest's decoding under hypothesis for longer than `make test` does (2,000 examples a
# property instead of 50; the property tests only).
fuzz: venv
	HYPOTHESIS_PROFILE=fuzz $(PY) -m pytest tests/test_fuzz_all_parsers.py tests/test_ior.py tests/test_mdtest.py \
		tests/test_fio.py tests/test_io500.py tests/test_gpfs.py tests/test_monitor.py -k "fuzz or damaged or hypothesis or mutat" -q

# JupyterLab on the chapter templates; charts show as the same SVG as in the built book. It
# prints the URL to open (with its token; JUPYTER_TOKEN=... sets one); `make lab LAB_PORT=9999` for another port.
# As root (containers), JupyterLab refuses to start without --allow-root.
LAB_PORT ?= 8888
lab: venv
	$(VENV)/bin/jupyter lab --notebook-dir=. --no-browser --port=$(LAB_PORT) $(if $(filter 0,$(shell id -u)),--allow-root)

bench: venv
	$(PY) benchmarks/bench_ingest.py $(or $(ARCHIVE),../shared/io500-submissions) $(BENCH_ARGS)

# The same on the MLPerf Storage v1.0 corpus (issue 48): its ingest against `cat` of its files, one scale, no Dask
# and no book, into _build/bench-mlperf.json (docs/scaling.md gives a run's numbers).
bench-mlperf: venv
	$(PY) benchmarks/bench_ingest.py $(or $(MLPERF),../shared/mlperf-storage-v1.0) --scales 1 --dask-workers '' \
		--no-book --allow-failed-files --out _build/bench-mlperf.json

# The book at a centre's scale (issue 30): ingest, each chapter and the site, one process each, on 1, 4 and 16
# copies of the archive; wall time and peak RSS per step into _build/bench-book.json (benchmarks/bench_book.py).
# 16 copies take long on 2 cores: `make bench-book BOOK_SCALES=1,4`.
BOOK_SCALES ?= 1,4,16
bench-book: venv
	$(PY) benchmarks/bench_book.py $(or $(ARCHIVE),../shared/io500-submissions) --scales $(BOOK_SCALES)

# DLIO's own environment for scripts/collect_dlio.py, apart from the book's .venv: dlio-benchmark 2.0.0 and only
# what its PyTorch path imports (scripts/requirements-dlio.txt says why each is there), all --no-deps so its
# declared CUDA and DALI dependencies are never resolved. 2.4 GB (TensorFlow 1.3 GB, torch 0.75 GB); ~5 minutes
# with an empty pip cache here (2026-12-02). `make collect-dlio DLIO_ARGS="--runs 1"` runs the collector with it.
DLIO_VENV := .venv-dlio
dlio-venv: $(DLIO_VENV)/.installed
$(DLIO_VENV)/.installed: scripts/requirements-dlio.txt
	test -x $(DLIO_VENV)/bin/python || $(PYTHON) -m venv $(DLIO_VENV)
	$(DLIO_VENV)/bin/python -m pip install --quiet --no-deps -r scripts/requirements-dlio.txt
	touch $@

collect-dlio: dlio-venv
	$(PYTHON) scripts/collect_dlio.py --dlio-venv $(DLIO_VENV) $(DLIO_ARGS)

# Everything built; the published chapters (book/*.ipynb) are kept: they are committed.
clean:
	rm -rf _build $(PUBLISHED_DB) $(PUBLISHED_DB).wal book/_static/fonts book/_static/downloads \
		book/_provenance.md book/_headlines.md book/_methods_rule.md book/.iobook-executed.json
