"""Plugins that misbehave are reported as slidelab's own failures are, by name, and change nothing (issue 48, section 5).

A broken package (its module missing, its import failing, a parameter named
like one of slidelab's options or without a type, a name taken, printing)
stops the command before it stores anything, in one line naming the package;
a plugin that raises, loops or eats memory while it searches is one job's
one-line failure, and the sweep goes on. The packages are those of the
hostile-input corpus, installed on PYTHONPATH of a real `orchestrate` process.
"""

import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main

import slidelab
from orchestrator.cli import app
from puzzles.algorithms import ALGORITHMS, PROBLEM_OPTIONS
from puzzles.errors import PuzzleError
from puzzles.plugins import COMMAND_OPTIONS, load_file
from puzzles.registry import HEURISTICS
from tests.hostile.corpus import PLUGINS, write_plugin

ROOT = Path(__file__).resolve().parents[2]
ORCHESTRATE = Path(sys.executable).parent / "orchestrate"
COURSE = [str(ROOT / f"data/boards/rushhour/Rushhour6x6_{n}.csv") for n in (1, 2)]
MISBEHAVING = '''
from slidelab.plugin import algorithm


@algorithm()
def raises(problem):
    """Raises at once."""
    raise ValueError("boom in the plugin")


@algorithm()
def spins(problem):
    """Loops without asking slidelab for anything: only the time limit stops it."""
    while True:
        pass


@algorithm()
def eats(problem):
    """Takes memory until there is none."""
    hoard = []
    while True:
        hoard.append(bytearray(10**7))


@algorithm()
def chatters(problem):
    """Prints while it searches."""
    print("expanding", problem.start)


@algorithm()
def answers_text(problem):
    """Returns what is no list of moves."""
    return "X+3"
'''


def orchestrate(folder: Path, *args: str, path: list[Path] | None = None, **environment: str) -> subprocess.CompletedProcess:
    """`orchestrate ARGS` in `folder`, no SLIDELAB_* settings but `environment`, the folders `path` on PYTHONPATH."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("SLIDELAB_")} | environment
    if path:
        env["PYTHONPATH"] = os.pathsep.join(map(str, path))
    return subprocess.run([str(ORCHESTRATE), *args], cwd=folder, env=env, capture_output=True, text=True, timeout=900)


def sweeps_in(db: Path) -> list[str]:
    with sqlite3.connect(db) as connection:
        return [name for (name,) in connection.execute("SELECT name FROM sweeps ORDER BY name")]


@pytest.fixture(scope="module")
def stored(tmp_path_factory) -> Path:
    """A folder whose results database holds one sweep."""
    folder = tmp_path_factory.mktemp("plugins")
    made = orchestrate(folder, "sweep", "--name", "before", "--algo", "bfs", "--boards", COURSE[0])
    assert made.returncode == 0, made.stderr
    return folder


@pytest.mark.parametrize("package", ["ghost-module", "broken-import", "clash-k", "clash-seed", "clash-heuristic",
                                     "clash-time_limit", "untyped", "chatty-import"])
def test_a_broken_package_stops_a_sweep_before_it_is_stored(stored, package):
    site = write_plugin(stored / "packages", package, PLUGINS[package])
    result = orchestrate(stored, "sweep", "--name", "after", "--algo", "bfs", "--boards", COURSE[0], path=[site])
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(f"error: plugin {package} {PLUGINS[package].version}")
    assert sweeps_in(stored / "slidelab.db") == ["before"]


def test_two_packages_registering_one_name_stop_the_command_naming_both(stored):
    sites = [write_plugin(stored / "packages", name, PLUGINS[name]) for name in ("twin-a", "twin-b")]
    result = orchestrate(stored, "sweep", "--name", "after", "--algo", "twin", "--boards", COURSE[0], path=sites)
    assert result.returncode == 2 and "twin-a 1.0" in result.stderr and "twin-b 1.0" in result.stderr
    assert sweeps_in(stored / "slidelab.db") == ["before"]


def test_with_autoload_disabled_a_broken_package_is_not_even_imported(stored):
    site = write_plugin(stored / "packages", "chatty-import", PLUGINS["chatty-import"])
    result = orchestrate(stored, "algorithms", "--json", path=[site], SLIDELAB_DISABLE_PLUGIN_AUTOLOAD="1")
    assert result.returncode == 0, result.stderr
    assert "hello" not in result.stdout and "chatty" not in result.stdout


def test_a_plugin_that_raises_loops_or_eats_memory_fails_its_own_job_and_the_sweep_goes_on(tmp_path):
    (tmp_path / "misbehaving.py").write_text(MISBEHAVING)
    names = ["raises", "spins", "eats", "chatters", "answers_text"]
    algos = ",".join([*(f"misbehaving.py:{name}" for name in names), "bfs"])
    made = orchestrate(tmp_path, "sweep", "--name", "bad", "--algo", algos, "--boards", *COURSE, "--time-limit", "3",
                       "--memory-limit", "400M", "--workers", "2")
    assert made.returncode == 0, made.stderr
    rows = slidelab.results("bad", db=f"sqlite:///{tmp_path / 'slidelab.db'}")
    reasons = {name.rpartition(":")[2]: set(group["outcome"] + ": " + group["reason"].fillna(""))
               for name, group in rows.groupby("algorithm")}
    assert all(reason.startswith("error: ValueError: boom in the plugin (") and "misbehaving.py:" in reason
               for reason in reasons["raises"])  # where it raised, as for slidelab's own errors
    assert reasons["spins"] == {"limit: time limit of 3.0 s reached"}
    assert reasons["eats"] == {"limit: out of memory (memory limit reached)"}
    assert all("printed to stdout while it searched ('expanding" in reason for reason in reasons["chatters"])
    assert all("returned str: a plugin algorithm returns a list of moves" in reason for reason in reasons["answers_text"])
    assert all("\n" not in reason for reasons_of in reasons.values() for reason in reasons_of)
    assert reasons["bfs"] == {"solved: "} and (rows["state"] == "done").all()


def test_every_option_of_solve_sweep_and_tune_is_a_name_no_plugin_parameter_may_take():
    """A plugin parameter becomes an option of these commands (and a keyword of their functions): it must take
    neither an option's flag (`--json`) nor its Python name (`as_json`)."""
    group = typer.main.get_command(app)
    parameters = {name for entry in ALGORITHMS.values() for name in entry.params} | set(PROBLEM_OPTIONS)
    names = {"help"}
    for command in ("solve", "sweep", "tune"):
        for option in group.commands[command].params:
            if option.name not in parameters:
                flags = [flag for flag in [*option.opts, *option.secondary_opts] if flag.startswith("--")]
                names |= {option.name, *(flag[2:].replace("-", "_") for flag in flags)}
    assert names - COMMAND_OPTIONS == set()
    assert {"k", "seed", "heuristic", "time_limit", "json", "as_json", "repeat"} <= COMMAND_OPTIONS | parameters


@pytest.fixture
def registry():
    """The registries as they were, again after the test (which registers plugin files in this process)."""
    saved = dict(ALGORITHMS), dict(HEURISTICS)
    yield
    for table, before in zip((ALGORITHMS, HEURISTICS), saved):
        table.clear()
        table.update(before)


def plugin_file(folder: Path, name: str, params: str) -> str:
    """A plugin file declaring the algorithm `search` with `params`; its `--algo` name."""
    path = folder / f"{name}.py"
    path.write_text("from slidelab.plugin import Param, algorithm\n\n\n"
                    f"@algorithm(params={{{params}}})\ndef search(problem, **params):\n    return None\n")
    return f"{path}:search"


def test_a_file_is_registered_once_under_its_absolute_path_with_its_origin(registry, tmp_path):
    name = plugin_file(tmp_path, "mine", "'depth': Param(3, int, 'how deep', minimum=1)")
    registered = load_file(name)
    assert registered == name and load_file(name) == name  # again: the same entry, not a second one
    origin = ALGORITHMS[registered].origin
    assert origin.local and origin.label == str(tmp_path / "mine.py") and len(origin.source_hash) == 64
    assert ALGORITHMS[registered].own_params["depth"].default == 3


def test_a_parameter_named_like_another_plugins_of_another_type_is_refused(registry, tmp_path):
    load_file(plugin_file(tmp_path, "first", "'depth': Param(3, int, 'how deep')"))
    with pytest.raises(PuzzleError, match=r"parameter 'depth' is a float, but .*first.py:search takes depth as a int"):
        load_file(plugin_file(tmp_path, "second", "'depth': Param(3.0, float, 'how deep')"))


@pytest.mark.parametrize("params, problem", [
    ("'memo': Param(True, bool, 'a memo')", "named like one of slidelab's own options (--memo)"),
    ("'max_nodes': Param(1, int, 'nodes')", "named like one of slidelab's own options (--max-nodes)"),
    ("'depth': Param(3, list, 'how deep')", "has no type"),
    ("'two words': Param(3, int, 'how deep')", "is no Python name"),
])
def test_a_parameter_slidelab_cannot_offer_as_an_option_is_refused_naming_the_file(registry, tmp_path, params, problem):
    with pytest.raises(PuzzleError, match=rf"^plugin {re.escape(str(tmp_path))}/bad.py: search's parameter .*{re.escape(problem)}"):
        load_file(plugin_file(tmp_path, "bad", params))
