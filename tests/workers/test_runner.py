"""JobRunner: real job processes under time and memory caps, killed, lost, replaced and stopped.

Each runner start costs a process (forked from the fork server, which the
first start launches), so one runner serves the whole module; only the tests of
`stop`, which ends a runner for good, and of a fresh process have their own.
"""

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from puzzles.domains import load_instance
from puzzles.result import Outcome
from workers import runner as runner_module
from workers.runner import JobRunner, Lost, hard_deadline
from workers.store.records import JobInput

OPTIMUM = {"6x6_1": 21, "6x6_2": 15, "6x6_3": 33, "9x9_4": 27}


@pytest.fixture(scope="module")
def texts(boards_dir) -> dict[str, str]:
    names = ("6x6_1", "6x6_2", "6x6_3", "9x9_4", "9x9_5", "9x9_6")
    return {name: load_instance(str(boards_dir / f"Rushhour{name}.csv")).text for name in names}


@pytest.fixture(scope="module")
def runner():
    job_runner = JobRunner()
    yield job_runner
    job_runner.close()


def job(job_id: int, text: str, algorithm: str = "bfs", params: dict | None = None, **limits) -> JobInput:
    return JobInput(job_id, "rushhour", text, algorithm, params or {}, **limits)


def job_processes() -> set[int]:
    """Pids of the live job processes of this test process."""
    return {p.pid for p in multiprocessing.active_children() if p.name == "slidelab-job"}


def run_all(job_runner: JobRunner, jobs: list[JobInput]) -> dict[int, object]:
    results = {}
    for done, result in job_runner.run(jobs):
        results[done.job_id] = result
    assert list(results) == [s.job_id for s in jobs[: len(results)]]  # in order
    return results


def test_hard_deadline():
    assert hard_deadline(10) == 17.5
    assert hard_deadline(0) == 5.0


def test_a_batch_of_bfs_jobs_gets_the_optimal_move_counts_from_one_process(runner, texts):
    results = run_all(runner, [job(i, texts[name]) for i, name in enumerate(OPTIMUM)])
    assert [(r.outcome, r.moves) for r in results.values()] == [("solved", m) for m in OPTIMUM.values()]
    assert len(results[0].solution.split()) == 21
    assert results[3].expanded > 100_000 and results[3].stored >= results[3].expanded
    assert len(job_processes()) == 1  # the process lives on for the next batch


def test_a_search_stops_at_its_time_limit_in_the_same_process(runner, texts):
    run_all(runner, [job(0, texts["6x6_1"])])
    before = job_processes()
    results = run_all(runner, [job(1, texts["9x9_5"], time_limit=0.5), job(2, texts["6x6_2"], time_limit=0.5)])
    assert results[1].outcome == "limit" and "time limit" in results[1].reason and "killed" not in results[1].reason
    assert 0.5 <= results[1].elapsed_s < 5.0
    assert (results[2].outcome, results[2].moves) == ("solved", 15)
    assert job_processes() == before  # not killed: the search stopped itself


def test_a_search_over_its_memory_cap_is_a_limit_and_the_runner_goes_on(runner, texts):
    capped = 64 << 20
    results = run_all(
        runner, [job(1, texts["9x9_5"], memory_limit=capped), job(2, texts["6x6_3"], memory_limit=capped)]
    )
    assert results[1].outcome == "limit" and "memory" in results[1].reason
    assert results[1].moves is None and results[1].stored > 0
    assert (results[2].outcome, results[2].moves) == ("solved", 33)
    again = run_all(runner, [job(3, texts["6x6_1"])])
    assert (again[3].outcome, again[3].moves) == ("solved", 21)


def test_the_first_job_of_a_new_process_gets_its_whole_memory_cap_for_its_search(texts):
    fresh = JobRunner()  # its compiler and kernels not loaded yet: they are, before the cap, not inside it
    try:
        results = run_all(fresh, [job(1, texts["6x6_3"], memory_limit=64 << 20)])
    finally:
        fresh.close()
    assert (results[1].outcome, results[1].moves) == ("solved", 33)


def test_a_job_that_raises_is_an_error_result_and_the_runner_goes_on(runner, texts):
    results = run_all(
        runner,
        [
            job(1, texts["6x6_1"], "beam", {"k": 5, "heuristic": "nope"}),  # bypasses the planner's checks
            job(2, '{"size": 6, "vehicles": '),  # a corrupt board
            job(3, texts["6x6_1"], "bfs", {"k": 5}),
            job(4, texts["6x6_2"], "beam", {"k": 50, "heuristic": "blockers-lb"}),
        ],
    )
    assert [r.outcome for r in results.values()] == [Outcome.ERROR, Outcome.ERROR, Outcome.ERROR, "solved"]
    assert results[1].error.startswith("PuzzleError: unknown heuristic 'nope'")
    assert "not valid JSON" in results[2].error
    assert "bfs does not take k" in results[3].error
    assert results[4].moves >= 15  # beam is not optimal, but never better than the optimum


def test_a_job_past_its_hard_deadline_is_killed_and_the_batch_goes_on_in_a_new_process(runner, texts, monkeypatch):
    monkeypatch.setattr(runner_module, "hard_deadline", lambda time_limit: 0.2)
    monkeypatch.setattr(runner_module, "COMPILE_ALLOWANCE_S", 0.0)
    run_all(runner, [job(0, texts["6x6_1"])])  # make sure a process is up
    (old,) = job_processes()
    started = time.monotonic()
    results = run_all(
        runner,
        [job(1, texts["9x9_6"], time_limit=60), job(2, texts["6x6_3"]), job(3, texts["6x6_1"])],
    )
    assert time.monotonic() - started < 30  # not the ~40 s bfs on 9x9_6 takes
    assert results[1].outcome == "limit" and "killed" in results[1].reason and results[1].moves is None
    assert (results[2].outcome, results[2].moves) == ("solved", 33)
    assert (results[3].outcome, results[3].moves) == ("solved", 21)
    assert old not in job_processes()


def test_a_job_process_that_dies_is_replaced(runner, texts):
    run_all(runner, [job(0, texts["6x6_1"])])
    (old,) = job_processes()
    threading.Timer(1.0, os.kill, (old, signal.SIGKILL)).start()  # as the kernel's OOM killer would
    results = run_all(runner, [job(1, texts["9x9_6"]), job(2, texts["6x6_2"])])
    assert isinstance(results[1], Lost) and results[1].cause == "the job process died (exit code -9)"
    assert (results[2].outcome, results[2].moves) == ("solved", 15)
    assert old not in job_processes()


def test_a_job_process_that_dies_under_a_memory_cap_is_a_memory_limit(runner, texts):
    run_all(runner, [job(0, texts["6x6_1"])])
    (old,) = job_processes()
    threading.Timer(1.0, os.kill, (old, signal.SIGKILL)).start()
    results = run_all(runner, [job(1, texts["9x9_6"], memory_limit=4 << 30), job(2, texts["6x6_1"])])
    assert results[1].outcome == "limit" and "out of memory" in results[1].reason
    assert (results[2].outcome, results[2].moves) == ("solved", 21)


def test_stop_from_another_thread_ends_run_without_a_result_for_the_held_job(texts):
    job_runner = JobRunner()
    try:
        seen, stopped = [], []
        for done, result in job_runner.run([job(1, texts["6x6_1"]), job(2, texts["9x9_6"]), job(3, texts["6x6_2"])]):
            seen.append((done.job_id, result.outcome, result.moves))
            threading.Timer(0.5, lambda: (stopped.append(time.monotonic()), job_runner.stop())).start()
        assert seen == [(1, "solved", 21)]
        assert time.monotonic() - stopped[0] < 15  # not the ~40 s bfs on 9x9_6 takes
        assert job_runner.stopping
        assert list(job_runner.run([job(4, texts["6x6_1"])])) == []  # a stopped runner runs nothing more
    finally:
        job_runner.close()


def test_a_job_process_that_cannot_start_leaves_a_usable_runner(texts, monkeypatch):
    job_runner = JobRunner()
    real_start = multiprocessing.process.BaseProcess.start

    def refuse(self):
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", refuse)
    with pytest.raises(OSError):
        list(job_runner.run([job(1, texts["6x6_1"])]))
    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", real_start)
    try:
        assert [r.moves for _, r in job_runner.run([job(2, texts["6x6_1"])])] == [21]
    finally:
        job_runner.close()


def test_a_job_process_loads_no_database_library(texts):
    """What a job process runs (configured with its parent's settings, a job run) imports neither SQLAlchemy nor a
    driver: about a third of its start-up, paid by every process a pool or a worker starts."""
    child = ("import json, sys\nfrom workers.jobs import run_job\nfrom workers.settings import Settings, configure\n"
             "from workers.store.records import JobInput\nconfigure(Settings())\n"
             f"run_job(JobInput(1, 'rushhour', {texts['6x6_1']!r}, 'bfs', {{}}))\n"
             "print(json.dumps(sorted({name.split('.')[0] for name in sys.modules})))")
    loaded = json.loads(subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, check=True).stdout)
    assert "numba" in loaded and not {"sqlalchemy", "psycopg", "alembic", "celery"} & set(loaded)
