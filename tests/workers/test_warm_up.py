"""The local pool's warm-up: each kind of job (domain, algorithm, heuristic) compiled once, before the pool fans out.

The pool first runs one job of each kind with no node to expand, a kind in
one process: a process then loads from the cache what another compiled, rather
than two processes compiling the same kernels side by side (the demo's first
run: about 2 min rather than 6 min 24 s).
"""

from pathlib import Path

from orchestrator.sweeps.running import run_pool
from puzzles.domains import load_instance
from workers.runner import JobRunner, warm_up_jobs
from workers.store.records import JobInput

BOARD = load_instance(str(Path(__file__).resolve().parents[2] / "data/boards/rushhour/Rushhour6x6_1.csv")).text


def job(job_id: int, algorithm: str, heuristic: str | None = None) -> JobInput:
    return JobInput(job_id, "rushhour", BOARD, algorithm, {"heuristic": heuristic} if heuristic else {}, time_limit=5.0)


def test_one_job_of_each_kind_expands_no_node():
    jobs = [job(1, "bfs"), job(2, "astar", "blockers-lb"), job(3, "bfs"), job(4, "astar", "blockers-lb"),
            job(5, "astar", "blocking-tree")]
    warming = warm_up_jobs(jobs)
    assert [(w.algorithm, w.params.get("heuristic")) for w in warming] == [
        ("bfs", None), ("astar", "blockers-lb"), ("astar", "blocking-tree")]
    assert all(w.max_nodes == 0 and w.time_limit is None for w in warming)


def test_each_kind_is_warmed_in_one_process_only():
    warming = warm_up_jobs([job(1, "bfs"), job(2, "astar", "blockers-lb"), job(3, "iddfs"), job(4, "bfs"),
                            job(5, "astar", "blockers-lb")])
    ran: list[tuple[int, str, str]] = []  # (runner, algorithm, outcome) per job run
    runners = [JobRunner(), JobRunner()]
    try:
        for runner in runners:
            runner.start()  # in this thread, which the fork server lasts as long as, not in a pool thread that ends first
        run_pool(warming, 2, lambda runner, w: ran.extend((id(runner), w.algorithm, r.outcome) for _, r in runner.run([w])),
                 lambda: None, runners)
    finally:
        for runner in runners:
            runner.close()
    assert sorted(algorithm for _, algorithm, _ in ran) == ["astar", "bfs", "iddfs"]  # each kind once: in one process
    assert {runner for runner, _, _ in ran} == {id(runner) for runner in runners}  # the kinds side by side in both
    assert {outcome for _, _, outcome in ran} == {"limit"}  # stopped at its first node


def test_no_jobs_nothing_to_do():
    assert warm_up_jobs([]) == []
