# make demo | make test | make lint | make bench — each creates or reuses .venv.
# A stamp file records the install (every extra, the test tools and the example plugin); it is redone only when
# pyproject.toml or the example's changes.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: demo test lint bench

# A real sweep on the embedded default (a local pool of processes, results in ./slidelab.db),
# then its report: a table here and an HTML file with the plots.
demo: $(VENV)/.stamp-test
	$(VENV)/bin/orchestrate sweep --name demo-beam --algo beam,astar --k 1..20 --heuristic blockers-lb \
		--time-limit 120 --boards 'data/boards/rushhour/Rushhour6x6_*.csv' 'data/boards/rushhour/Rushhour9x9_*.csv'
	$(VENV)/bin/orchestrate report demo-beam --by algorithm,k
	$(VENV)/bin/orchestrate report demo-beam --format html --out demo-report.html

# The tests run in parallel, a process per core (at most four), each module's tests in one process;
# first the kernels are compiled once into numba's cache, for all of them to load (tests/warmup.py).
test: $(VENV)/.stamp-test
	$(PY) -m pytest -n auto --maxprocesses 4 --dist loadscope

# Lint and import order (ruff), types of the core and the storage layer (mypy): both configured in pyproject.toml.
lint: $(VENV)/.stamp-test
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

bench: $(VENV)/.stamp-test
	$(PY) bench/cli.py
	$(PY) bench/run.py
	$(PY) bench/rushhour.py
	$(PY) bench/depthfirst.py
	$(PY) bench/runner.py
	$(PY) bench/sqlite_writers.py
	$(PY) bench/npuzzle.py
	$(PY) bench/npuzzle24.py
	$(PY) bench/plugins.py
	$(PY) bench/demo.py
	$(PY) bench/million.py
	$(PY) bench/docs_figures.py

$(PY):
	$(PYTHON) -m venv $(VENV)

# uv installs the same packages as pip in a third of the time (16 s against 53 s here); pip stays the fallback.
# Their bytecode is compiled at install, as pip does: where PYTHONDONTWRITEBYTECODE is set (this machine), no
# process would write it, and every job process would compile the libraries' sources again.
# The example plugin package (examples/greedy-search) is installed beside slidelab: the tests run it as a user's plugin.
$(VENV)/.stamp-test: pyproject.toml examples/greedy-search/pyproject.toml | $(PY)
	$(PY) -m pip install --quiet uv && $(VENV)/bin/uv pip install --quiet --compile-bytecode --python $(PY) -e '.[test]' \
		-e examples/greedy-search || $(PY) -m pip install -e '.[test]' -e examples/greedy-search
	touch $@
