"""A job of plugins runs only with exactly the plugins it was planned with, and its result records them.

The plugins are plain-Python files (`--algo FILE.py:NAME`), registered in this
process by `puzzles.plugins.load_file` and loaded afresh by each job process. A
new version is the file edited: its source hash changes. An installed
package's version is simulated by giving the registered entry another origin.
"""

import contextlib
import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from orchestrator.sweeps.grid import SweepGrid
from orchestrator.sweeps.sources import load_boards
from puzzles.algorithms import find_algorithm
from puzzles.plugins import Origin, load_file, origins, plugins_key
from puzzles.registry import ALGORITHMS, HEURISTICS
from puzzles.result import Outcome
from tests.plugin_sources import SHORTEST
from tests.stored import store_sweep
from tests.tables import job_rows, result_rows
from workers.execute import execute
from workers.jobs import run_job
from workers.runner import JobRunner
from workers.store import connect
from workers.store.jobs import job_inputs
from workers.store.records import JobInput

BOARD = "Rushhour6x6_1.csv"  # 21 moves at the fewest
PLUGIN = '''"""Test plugins: breadth-first search in plain Python, and a liar that claims shortest solutions."""

from slidelab.plugin import algorithm
''' + SHORTEST + '''

@algorithm()
def breadth(problem):
    """breadth-first search in plain Python"""
    return _shortest(problem)


@algorithm(optimal=True)
def liar(problem):
    """shortest solutions, it claims: a needless move and its undoing, then a shortest solution"""
    move, there = problem.successors(problem.start)[0]
    back = next(code for code, state in problem.successors(there) if state == problem.start)
    return [move, back, *_shortest(problem)]
'''


@contextlib.contextmanager
def restored_registry() -> Iterator[None]:
    """The registries of algorithms and heuristics as they were before, whatever was registered inside."""
    algorithms, heuristics = dict(ALGORITHMS), dict(HEURISTICS)
    try:
        yield
    finally:
        ALGORITHMS.clear()
        ALGORITHMS.update(algorithms)
        HEURISTICS.clear()
        HEURISTICS.update(heuristics)


@pytest.fixture
def registry():
    """The registries as they were before the test, whatever it registered."""
    with restored_registry():
        yield


def plugin_file(folder: Path) -> Path:
    """The test plugins' file, written in `folder`."""
    path = folder / "plugged.py"
    path.write_text(PLUGIN)
    return path


def upgraded(path: Path) -> None:
    """The plugin file edited (another source hash), and this process's registration of it dropped, as a new process
    would load it again."""
    path.write_text(path.read_text() + "\n# version 2\n")
    for name in [name for name, entry in ALGORITHMS.items() if entry.origin is not None and entry.origin.local]:
        del ALGORITHMS[name]


def key_of(algorithm: str, domain: str = "rushhour") -> str:
    """The plugins key of a job of `algorithm` in this process."""
    key = plugins_key(origins(domain, algorithm, {}))
    assert key is not None
    return key


def job(boards_dir: Path, algorithm: str, plugins: str | None) -> JobInput:
    (board,) = load_boards([str(boards_dir / BOARD)])
    return JobInput(1, board.domain, board.text, algorithm, {}, board_id=board.id, plugins=plugins)


def test_a_job_whose_plugin_is_another_version_fails_naming_both(registry, tmp_path, boards_dir):
    name = load_file(f"{plugin_file(tmp_path)}:breadth")
    older = Origin("route-search", "0.1.0", "1" * 64)
    ALGORITHMS[name] = dataclasses.replace(ALGORITHMS[name], origin=older)  # as an installed package's would be
    result = run_job(job(boards_dir, name, "route-search==0.2.0#3f2a9c1b07de"))
    assert result.outcome == Outcome.ERROR
    assert result.error == "needs plugin route-search 0.2.0 (source 3f2a9c1b07de); this worker has route-search 0.1.0"
    assert result.provenance["plugins"] == []  # none ran


def test_a_job_whose_plugin_has_the_same_version_but_another_source_fails_naming_both_sources(registry, tmp_path,
                                                                                              boards_dir):
    name = load_file(f"{plugin_file(tmp_path)}:breadth")
    now = ALGORITHMS[name].origin
    result = run_job(job(boards_dir, name, f"{now.distribution}==local#abcdefabcdef"))
    assert result.error == (f"needs plugin {now.distribution} (source abcdefabcdef); this worker has"
                            f" {now.distribution} (source {now.source_hash[:12]})")


def test_a_job_whose_plugin_is_missing_fails_naming_the_package(boards_dir):
    result = run_job(job(boards_dir, "nowhere-search-best", "nowhere-search==1.0#aaaaaaaaaaaa"))
    assert result.outcome == Outcome.ERROR
    assert result.error == "needs plugin nowhere-search 1.0 (source aaaaaaaaaaaa); this worker has no nowhere-search"


def test_a_job_with_its_plugin_runs_and_its_result_records_the_plugins_origin(registry, tmp_path, boards_dir):
    name = load_file(f"{plugin_file(tmp_path)}:breadth")
    result = run_job(job(boards_dir, name, key_of(name)))
    assert (result.outcome, result.moves) == (Outcome.SOLVED, 21)
    origin = find_algorithm(name).origin
    assert result.provenance["plugins"] == [origin.as_dict()]
    assert result.provenance["plugins"][0]["source"] == origin.source_hash and len(origin.source_hash) == 64


def test_a_job_of_slidelab_own_records_no_plugins(boards_dir):
    result = run_job(job(boards_dir, "bfs", None))
    assert result.moves == 21 and "plugins" not in result.provenance


def test_a_worker_fails_the_jobs_of_another_plugin_version_and_goes_on(registry, db_url, tmp_path, boards_dir):
    db = connect(db_url)
    path = plugin_file(tmp_path)
    name = load_file(f"{path}:breadth")
    boards = load_boards([str(boards_dir / board) for board in (BOARD, "Rushhour6x6_2.csv")])
    planned, _, ids = store_sweep(db, "mixed", boards, SweepGrid([name, "bfs"]))
    (first, second), own = ids[::2], ids[1::2]  # the plugin's job, then bfs's, on each board
    planned_key = key_of(name)
    assert [planned_job.plugins for planned_job in planned.jobs] == [planned_key, None, planned_key, None]
    assert [entry.plugins for entry in job_inputs(db, [first, *own])] == [planned_key, None, None]
    runner = JobRunner()
    try:
        assert execute(db, [first], runner, "w1") == ["solved"]  # the job process loads the file as planned
        upgraded(path)  # then the file changes, and a new job process loads another version
        runner.close()
        outcomes = execute(db, [second, *own], runner, "w1")
    finally:
        runner.close()
    stored, jobs = result_rows(db), job_rows(db)
    assert outcomes == ["solved", "error", "solved"] and {jobs[i].status for i in jobs} == {"done"}
    source = planned_key.rpartition("#")[2]
    assert stored[second].error == (f"needs plugin {path} (source {source}); this worker has {path}"
                                    f" (source {key_of(name).rpartition('#')[2]})")
    assert [plugin["source"][:12] for plugin in stored[first].provenance["plugins"]] == [source]
    assert all("plugins" not in stored[job_id].provenance for job_id in own)
