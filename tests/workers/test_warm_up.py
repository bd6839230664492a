"""The local pool's warm-up: each kind of job (domain, algorithm, heuristic) compiled once, before the pool fans out.

The demo's two job processes used to compile the same kernels side by side
(6 min 24 s instead of about 2). `warm_up` shares the kinds out among the
processes, one kind to one process, with no node to expand: a process then
loads from the cache what another compiled.
"""

from workers.runner import JobRunner, warm_up
from workers.store.records import JobInput

BOARD = "oooooooooooooAAooooooooooooooooooooo"  # the red car one move from the exit


def job(job_id: int, algorithm: str, heuristic: str | None = None) -> JobInput:
    return JobInput(job_id, "rushhour", BOARD, algorithm, {"heuristic": heuristic} if heuristic else {}, time_limit=5.0)


def test_each_kind_is_warmed_in_one_process_only():
    jobs = [job(1, "bfs"), job(2, "astar", "blockers-lb"), job(3, "bfs"), job(4, "astar", "blockers-lb"),
            job(5, "astar", "blocking-tree")]
    runners = [JobRunner(), JobRunner()]
    try:
        warm_up(runners, jobs)
        warmed = [set(runner._warm) for runner in runners]  # what each runner's process ran: compiled or loaded
    finally:
        for runner in runners:
            runner.close()
    assert warmed == [{("rushhour", "bfs"), ("rushhour", "astar")}, {("rushhour", "astar")}]


def test_no_jobs_no_runners_nothing_to_do():
    warm_up([], [])
    runner = JobRunner()
    warm_up([runner], [])
    assert runner._warm == set()
    runner.close()
