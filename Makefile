# Every target sets itself up: a fresh clone needs nothing but Python 3.11 and `make`.
PY      ?= python3.11
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
# The exact torch pin takes the machine's local CPU wheel; any other spec downloads GBs of CUDA.
TORCH   := torch==2.13.0

.PHONY: test lab-test train agents bench study golden lint typecheck check clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet $(TORCH)
	$(BIN)/pip install --quiet -e '.[dev,distributed,examples,openspiel]'
	touch $(STAMP)

# one pytest-xdist worker per core and one more, at most 5 (each holds torch and numba's
# kernels), an idle worker taking queued tests from a busy one (worksteal): many tests wait
# on processes they start (training members, study cells, Chromium, Ray), and with one
# worker a core the cores stood idle a quarter of the time (2 cores, AMD EPYC,
# 2026-12-02: 2 workers 618 s of pytest for 890 CPU seconds, 3 workers 506 s, none idle)
# (TEST_WORKERS=0: one process); the 15 slowest tests are listed at the end, so that a CI log
# shows where the 10 minutes go; the lab's tests run by `make lab-test`
TEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); n=$$((n + 1)); [ $$n -gt 5 ] && n=5; echo $$n)
test: $(STAMP)
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist worksteal --durations=15

# the lab's experiments (lab/README.md): their tests and doctests, apart from make test
lab-test: $(STAMP)
	$(BIN)/python -m pytest -q -n 0 lab

# the bare command (its defaults are the shipped agent's first stage: self-play, its
# network, inputs and PPO settings) for 200k learner decisions, an evaluation on the 200
# validation deals every 50k: about 1 1/2 minutes on one core (docs/training.md); each run
# replaces the last one's files
train: $(STAMP)
	$(BIN)/python -m training.train --steps 200000 --epoch-steps 50000 \
		--run-dir runs/quick --overwrite

# the shipped agents by their recipes (training.recipes; docs/training.md): one recipe after
# the other, each training its two members side by side, one core each, into
# runs/recipes/NAME, then shipped: --ship copies the finished run's agent over
# training/agents/NAME.pt (keeping the one it replaces in the run directory); run again to
# continue after an interruption. trained trains from scratch (about 1 1/2 hours);
# trained-charlesworth continues from its stages kept in training/recipes/stages (all eight
# are finished there, so it exports and reports: minutes; from its start, 6 1/2 hours)
agents: $(STAMP)
	$(BIN)/python -m training.recipes trained
	$(BIN)/python -m training.recipes trained --ship
	$(BIN)/python -m training.recipes trained-charlesworth
	$(BIN)/python -m training.recipes trained-charlesworth --ship

bench: $(STAMP)
	$(BIN)/python -m bench.rules
	$(BIN)/python -m bench.env
	$(BIN)/python -m bench.vector
	$(BIN)/python -m bench.train
	$(BIN)/python -m bench.heuristic
	$(BIN)/python -m bench.search
	$(BIN)/python -m bench.evaluation
	$(BIN)/python -m bench.distributed

# the observer study trained the recipes' way, 1.5M decisions a cell (2 h 41 min on 2 cores,
# docs/ablation.md);
# re-running skips finished cells and continues the others from their last checkpoints
study: $(STAMP)
	$(BIN)/python -m training.ablation --study studies/observers-1500k.toml

# regenerate the golden files and generated docs after an intended change (review the diff)
golden: $(STAMP)
	$(BIN)/python tests/make_golden.py
	$(BIN)/python tests/make_playthrough.py
	$(BIN)/python tests/make_perft.py
	$(BIN)/python tests/make_docs.py

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

check: lint typecheck test

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
