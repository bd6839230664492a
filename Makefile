# make demo | make test | make bench — each creates or reuses .venv.
# A stamp file per set of extras records the install; it is redone only when
# pyproject.toml changes.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: demo test bench

# A real sweep on the embedded default (a local pool of processes, results in ./slidelab.db).
DEMO_BOARDS := data/boards/rushhour/Rushhour6x6_1.csv data/boards/rushhour/Rushhour6x6_2.csv \
	data/boards/rushhour/Rushhour6x6_3.csv data/boards/rushhour/Rushhour9x9_4.csv

demo: $(VENV)/.stamp-test
	$(VENV)/bin/orchestrate sweep --name demo --algo bfs,astar,beam,moves-freed,spr \
		--heuristic blockers-lb --k 1,5,50 --batches 5 --batch-size 10 --time-limit 60 --boards $(DEMO_BOARDS)
	$(VENV)/bin/orchestrate jobs demo --limit 100

test: $(VENV)/.stamp-test
	$(PY) -m pytest

bench: $(VENV)/.stamp-bench
	$(PY) bench/run.py
	$(PY) bench/runner.py

$(PY):
	$(PYTHON) -m venv $(VENV)

$(VENV)/.stamp-test: pyproject.toml | $(PY)
	$(PY) -m pip install -e '.[test]'
	touch $@

$(VENV)/.stamp-bench: pyproject.toml | $(PY)
	$(PY) -m pip install -e '.[test,bench]'
	touch $@
