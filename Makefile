# make demo | make test | make bench — each creates or reuses .venv.
# A stamp file per set of extras records the install; it is redone only when
# pyproject.toml changes.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: demo test bench

demo: $(VENV)/.stamp-test
	$(VENV)/bin/orchestrate demo

test: $(VENV)/.stamp-test
	$(PY) -m pytest

bench: $(VENV)/.stamp-bench
	$(PY) bench/run.py

$(PY):
	$(PYTHON) -m venv $(VENV)

$(VENV)/.stamp-test: pyproject.toml | $(PY)
	$(PY) -m pip install -e '.[test]'
	touch $@

$(VENV)/.stamp-bench: pyproject.toml | $(PY)
	$(PY) -m pip install -e '.[test,bench]'
	touch $@
