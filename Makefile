# Two commands on a fresh machine:  `make demo`  and  `make test`.
# Both create .venv and install the project into it the first time.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-all bench lint

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/petitions demo --out out/demo

test: $(STAMP)
	$(BIN)/pytest -q -n 2 --dist worksteal

test-all: $(STAMP)
	$(BIN)/pytest -q -m ''

lint: $(STAMP)
	$(BIN)/ruff check pipeline matchers flows dashboard tests bench
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python bench/check_time.py
