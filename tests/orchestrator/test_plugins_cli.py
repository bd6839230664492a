"""The researcher's plugins on the command line, as a user runs them (issue 48, sections 1 and 4).

The example package examples/greedy-search (installed by `make test`) runs in
a sweep on the local pool against slidelab's own A*, its heuristic inside
that A* too, and one report shows them side by side; `orchestrate algorithms`
lists it with its package and version; its parameter is an option of solve,
sweep and tune. A plugin in a file runs without packaging, named as
`--algo FILE.py:NAME`. Each command is a real `orchestrate` process: the
program registers the plugins before it builds its options.
"""

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import slidelab
from puzzles.errors import PuzzleError

ROOT = Path(__file__).resolve().parents[2]
ORCHESTRATE = Path(sys.executable).parent / "orchestrate"
COURSE = "data/boards/rushhour/Rushhour6x6_*.csv"
OPTIMA = {"Rushhour6x6_1": 21, "Rushhour6x6_2": 15, "Rushhour6x6_3": 33}
BREADTH_FIRST = '''
from collections import deque

from slidelab.plugin import Param, algorithm


@algorithm(params={"max_depth": Param(100, int, "the deepest it looks", minimum=1)}, optimal=True)
def breadth(problem, *, max_depth):
    """Breadth-first search in plain Python: shortest solutions, up to max_depth moves."""
    parents = {problem.start: None}
    frontier = deque([(problem.start, 0)])
    while frontier:
        state, depth = frontier.popleft()
        if problem.is_goal(state):
            moves = []
            while parents[state] is not None:
                move, state = parents[state]
                moves.append(move)
            return moves[::-1]
        if depth < max_depth:
            for move, child in problem.successors(state):
                if child not in parents:
                    parents[child] = (move, state)
                    frontier.append((child, depth + 1))
    return None
'''


def orchestrate(folder: Path, *args: str) -> subprocess.CompletedProcess:
    """`orchestrate ARGS` in `folder` (its `data` a link to the checkout's), with no SLIDELAB_* settings."""
    environment = {name: value for name, value in os.environ.items() if not name.startswith("SLIDELAB_")}
    return subprocess.run([str(ORCHESTRATE), *args], cwd=folder, env=environment, capture_output=True, text=True,
                          timeout=900)


def ok(result: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert result.returncode == 0, result.stderr[-3000:]
    return result


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    made = tmp_path_factory.mktemp("plugins-cli")
    (made / "data").symlink_to(ROOT / "data")
    return made


@pytest.fixture(scope="module")
def compared(folder) -> Path:
    """The example's algorithms and heuristic against slidelab's A* and blockers-lb on the course boards, run here."""
    ok(orchestrate(folder, "sweep", "--name", "plug", "--algo", "greedy,wastar,astar", "--heuristic",
                   "blockers-lb,blockers-nb", "--boards", COURSE, "--workers", "2", "--time-limit", "300"))
    return folder


def report_rows(folder: Path, *args: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(ok(orchestrate(folder, "report", *args, "--format", "csv")).stdout)))


def test_the_example_plugin_runs_in_a_sweep_against_the_built_ins_and_one_report_holds_them(compared):
    rows = {(row["algorithm"], row["heuristic"]): row for row in report_rows(compared, "plug", "--by", "algorithm,heuristic")}
    assert set(rows) == {(algorithm, heuristic) for algorithm in ("greedy", "wastar", "astar")
                         for heuristic in ("blockers-lb", "blockers-nb")}
    assert all(row["jobs"] == "3" and float(row["solved_share"]) == 1.0 for row in rows.values())
    optimum = sum(OPTIMA.values()) / len(OPTIMA)
    for heuristic in ("blockers-lb", "blockers-nb"):  # slidelab's A* runs the plugin heuristic as its own
        assert float(rows["astar", heuristic]["moves_mean"]) == pytest.approx(optimum)
        assert optimum <= float(rows["wastar", heuristic]["moves_mean"]) <= 1.5 * optimum  # w = 1.5 by default
        assert float(rows["greedy", heuristic]["moves_mean"]) >= optimum
    table = ok(orchestrate(compared, "report", "plug", "--by", "algorithm,heuristic")).stdout
    assert all(name in table for name in ("greedy", "wastar", "astar", "blockers-nb"))


def test_each_result_records_the_plugins_it_ran(compared):
    exported = list(csv.DictReader(io.StringIO(ok(orchestrate(compared, "export", "plug")).stdout)))
    for row in exported:
        plugins = row["plugins"].split()
        expected = int(row["algorithm"] != "astar" or "blockers-nb" in row["params"])  # the package, once
        assert len(plugins) == expected and all(key.startswith("greedy-search==0.2.0#") for key in plugins), row


def test_algorithms_lists_the_plugins_with_their_package_and_version(folder):
    shown = ok(orchestrate(folder, "algorithms")).stdout
    for name in ("greedy", "wastar", "blockers-nb", "blockers-py"):  # an algorithm's row, or a heuristic's by domain
        assert any(name in row.split()[:2] and row.rstrip().endswith("greedy-search 0.2.0") for row in shown.splitlines())
    assert "plugins: greedy-search 0.2.0" in shown
    listed = json.loads(ok(orchestrate(folder, "algorithms", "--json")).stdout)
    algorithms = {entry["name"]: entry for entry in listed["algorithms"]}
    assert algorithms["astar"]["plugin"] is None and algorithms["astar"]["optimal"]
    wastar = algorithms["wastar"]
    assert (wastar["plugin"]["package"], wastar["plugin"]["version"]) == ("greedy-search", "0.2.0")
    assert [(p["name"], p["type"], p["default"], p["minimum"]) for p in wastar["parameters"]] == [("w", "float", 1.5, 1)]
    assert wastar["heuristic"] == "blockers-lb" and not wastar["optimal"] and not wastar["randomized"]
    heuristics = {(entry["domain"], entry["name"]): entry for entry in listed["heuristics"]}
    assert heuristics["rushhour", "blockers-nb"]["compiled"] and not heuristics["rushhour", "blockers-py"]["compiled"]
    assert heuristics["rushhour", "blockers-nb"]["admissible"] and heuristics["rushhour", "blockers-lb"]["plugin"] is None
    assert "Example: orchestrate algorithms" in ok(orchestrate(folder, "algorithms", "--help")).stdout


@pytest.mark.parametrize("command", ["solve", "sweep", "tune"])
def test_a_plugin_parameter_is_an_option_of_solve_sweep_and_tune(folder, command):
    shown = ok(orchestrate(folder, command, "--help")).stdout
    assert "--w " in shown and "wastar: weight of h" in " ".join(shown.split())


def test_a_plugin_parameter_is_given_and_checked_as_slidelab_s_own(folder):
    board = "data/boards/rushhour/Rushhour6x6_1.csv"
    solved = json.loads(ok(orchestrate(folder, "solve", board, "--algo", "wastar", "--w", "1", "--json")).stdout)
    assert (solved["outcome"], solved["moves"], solved["params"]["w"]) == ("solved", 21, 1.0)
    refused = orchestrate(folder, "solve", board, "--algo", "wastar", "--w", "0.5")
    assert refused.returncode == 2 and refused.stderr.startswith("error: ") and "w" in refused.stderr
    planned = ok(orchestrate(folder, "sweep", "--name", "weights", "--algo", "wastar", "--w", "1,2,4", "--boards", board,
                             "--dry-run")).stdout
    assert planned.startswith("sweep weights: 3 jobs on 1 board") and '"w":4' in planned.replace(" ", "")


def test_a_plugin_in_a_file_runs_in_solve_and_sweep_on_the_local_pool(folder, tmp_path):
    (tmp_path / "breadth.py").write_text(BREADTH_FIRST)
    name = f"{tmp_path / 'breadth.py'}:breadth"
    board = "data/boards/rushhour/Rushhour6x6_2.csv"
    solved = json.loads(ok(orchestrate(folder, "solve", board, "--algo", name, "--json")).stdout)
    assert (solved["outcome"], solved["moves"]) == ("solved", OPTIMA["Rushhour6x6_2"])
    assert solved["expanded"] > 0 and solved["generated"] > solved["expanded"]  # counted by slidelab, not the plugin
    shallow = json.loads(ok(orchestrate(folder, "solve", board, "--algo", name, "--max-depth", "3", "--json")).stdout)
    assert shallow["outcome"] == "failed"
    ok(orchestrate(folder, "sweep", "--name", "file", "--algo", f"{name},bfs", "--boards", COURSE, "--workers", "2"))
    rows = report_rows(folder, "file", "--by", "algorithm,board")
    moves = {(row["algorithm"].rpartition(":")[2], row["board"]): float(row["moves_mean"]) for row in rows}
    assert moves == {(algorithm, board): optimum for algorithm in ("breadth", "bfs") for board, optimum in OPTIMA.items()}


def test_the_library_lists_slidelab_s_own_first_then_the_plugins():
    names = [entry.name for entry in slidelab.algorithms()]
    assert names[:4] == ["random", "spr", "iddfs", "bfs"] and "idastar-subtree" not in names  # split's jobs: never chosen
    assert names.index("moves-freed") < names.index("greedy") < names.index("wastar")
    own = [entry.plugin is None for entry in slidelab.algorithms()]
    assert own == sorted(own, reverse=True)  # every one of slidelab's before every plugin
    assert {entry.domain for entry in slidelab.heuristics("npuzzle")} == {"npuzzle"}
    with pytest.raises(PuzzleError, match="unknown domain 'sokoban'"):
        slidelab.heuristics("sokoban")
