# Two commands do all the set-up on a fresh machine:
#   make bench  the main job on its offline default: the Walters & Wilder benchmark
#   make test   lint, type-check and the test suite
# (make demo: a 17-citation demonstration against the offline world, in seconds.)
# Each creates the project venv (.venv) and installs into it when missing or stale.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: bench demo test lint typecheck pytest clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

bench: $(STAMP)
	$(BIN)/verifier bench walters-wilder --json walters-wilder-results.json

# The demo's exit code 1 only says that some demo citations are (rightly) not verified.
demo: $(STAMP)
	$(BIN)/verifier demo --output demo-results.jsonl || [ $$? -eq 1 ]

test: lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check verifier adapters tests $(wildcard bench)

typecheck: $(STAMP)
	$(BIN)/mypy
	MYPYPATH=bench $(BIN)/mypy --strict bench/*.py
	# The tests too, with untyped test functions and helpers allowed.
	MYPYPATH=tests:bench $(BIN)/mypy --strict --explicit-package-bases --allow-untyped-defs \
		--allow-incomplete-defs --allow-untyped-calls tests

pytest: $(STAMP)
	$(BIN)/pytest

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
