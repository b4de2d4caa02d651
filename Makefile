# Every target sets itself up: a fresh clone needs nothing but Python 3.11 and `make`.
PY      ?= python3.11
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
# The exact torch pin takes the machine's local CPU wheel; any other spec downloads GBs of CUDA.
TORCH   := torch==2.13.0

.PHONY: test train bench lint typecheck check clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet $(TORCH)
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest -q

train: $(STAMP)
	@echo "make train: training lands with the training issue; for now, a seeded demo game between baseline players:"
	$(BIN)/big2 demo --seed 0

bench: $(STAMP)
	$(BIN)/python -m bench.rules
	$(BIN)/python -m bench.env

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

check: lint typecheck test

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
