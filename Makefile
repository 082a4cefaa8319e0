# Two commands do all the set-up on a fresh machine:
#   make bench  the main job on its offline default: the Walters & Wilder benchmark
#   make test   lint, type-check and the test suite
# (make demo: a 17-citation demonstration against the offline world, in seconds.)
# Each creates the project venv (.venv) and installs into it when missing or stale.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The modules compiled to C at install and the C sources (native-modules.txt, read by
# setup.py): an edit to one rebuilds them, as the stale extension would otherwise be
# imported in its source's place.
NATIVE_SOURCES := $(shell grep -v '^\#' native-modules.txt)
# Removes the compiled modules (an install builds them anew, or none when pure).
REMOVE_NATIVE := rm -f verifier_native__mypyc.*.so && find verifier adapters -name '*.so' -delete
# The Walters & Wilder data the benchmark reads (read-only, never copied into the repo).
SHARED_DATA ?= ../shared/data
WW_DATA := $(SHARED_DATA)/walters_wilder_2023

.PHONY: bench demo test lint typecheck pytest clean check-shared-data

$(STAMP): pyproject.toml setup.py native-modules.txt $(NATIVE_SOURCES)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(REMOVE_NATIVE)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

bench: check-shared-data $(STAMP)
	$(BIN)/verifier bench walters-wilder --data $(WW_DATA) --json walters-wilder-results.json

check-shared-data:
	@test -f $(WW_DATA)/ww2023_citations.csv || { \
	  echo "make bench: the Walters & Wilder data is expected in $(WW_DATA)" \
	       "(ww2023_citations.csv) and is not there." >&2; \
	  echo "  Put the shared data folder beside this checkout (../shared/data)," \
	       "or name it: make bench SHARED_DATA=/path/to/shared/data" >&2; \
	  exit 1; }

# The demo's exit code 1 only says that some demo citations are (rightly) not verified.
demo: $(STAMP)
	$(BIN)/verifier demo --force --output demo-results.jsonl || [ $$? -eq 1 ]

test: lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check verifier adapters tests $(wildcard bench) setup.py

typecheck: $(STAMP)
	$(BIN)/mypy
	MYPYPATH=bench $(BIN)/mypy --strict bench/*.py
	# The tests too, with untyped test functions and helpers allowed.
	MYPYPATH=tests:bench $(BIN)/mypy --strict --explicit-package-bases --allow-untyped-defs \
		--allow-incomplete-defs --allow-untyped-calls tests

pytest: $(STAMP)
	$(BIN)/pytest

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache build
	$(REMOVE_NATIVE)
