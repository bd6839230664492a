"""`orchestrate split`: one IDA* search spread over the workers, bound by bound, as subtree jobs.

For each bound of IDA*, this process lists the nodes `depth` moves below the
start whose f stays within the bound (`puzzles.search.subtree.frontier`); each
becomes a job, `idastar-subtree` below that node with that bound, in a sweep of
its own (`NAME-b<bound>`) run like any other: by the Celery workers when there
is a broker, else by the local pool. The next bound is the least f any job, or
the frontier, saw beyond this one. A job's parameters (the prefix, the bound,
the split's depth) say where it lies in the split search. A bound whose
iteration should expand fewer than `split_above` nodes (foreseen from the
growth of the bounds before it) is searched here, whole, as one core would:
its jobs would cost more to start than they save. From the second split bound
on, a subtree that took more than MAX_SHARE of the last split bound's nodes is
split further, in proportion (`deeper_splits`), so that no job is left running
alone at a bound's end; unless it is foreseen to expand fewer than MAX_SHARE of
`split_above` nodes.

Node counts are those of IDA* on one core: the frontier's nodes plus, in
depth-first order, every subtree before the first that holds a solution and
that subtree's own count up to it. Once a subtree holds a solution, the
subtrees after it not yet begun are skipped (stored with the outcome limit):
every solution of the bound is optimal, so none of them can change the answer
nor one core's counts. Once every subtree before it is done too, the local job
processes are stopped and the jobs they held stored as limit as well (Celery
workers finish theirs); the nodes of the later subtrees that finished are
reported apart, as work. Without a broker the job processes are started before
the first bound and kept across bounds, so that they start while the small
bounds are searched here.
"""

import math
import threading
import time
from collections import Counter
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field

from orchestrator.sweeps.grid import SweepGrid
from orchestrator.sweeps.lookups import find_sweep
from orchestrator.sweeps.plan import plan_sweep
from orchestrator.sweeps.running import job_processes, store_and_run
from puzzles.domains import problem_for
from puzzles.errors import PuzzleError
from puzzles.kernels import has_in_place
from puzzles.problem import Problem
from puzzles.result import Limits, Outcome
from puzzles.search import idastar, subtree
from workers.runner import JobRunner
from workers.settings import settings
from workers.store import Database
from workers.store.jobs import skip
from workers.store.records import JobResult
from workers.store.rows import job_rows

SPLIT_ALGORITHM = "idastar-subtree"
WATCH_S = 0.25  # seconds between looks at a bound's results for a solution
SPLIT_ABOVE = 50_000_000  # nodes: an iteration foreseen to expand fewer runs here (seconds of one core)
FIRST_GROWTH = 10  # the growth foreseen from the first bound to the second, before any is measured
MAX_SHARE = 1 / 64  # a subtree that expanded more of its bound's nodes than this is split further at the next bound


@dataclass(frozen=True)
class Round:
    """One bound of a split search: its sweep, subtrees and counts."""

    bound: int
    sweep: str | None  # None when this process settled the bound: a small iteration, or the frontier alone
    subtrees: int
    deeper: int  # subtrees of the split's depth split further
    expanded: int  # as one core counts them
    generated: int
    work: int  # nodes expanded by every job of the bound, and the frontier
    seconds: float


@dataclass
class SplitResult:
    """A split search: how it was split, its rounds, and its answer with one core's node counts."""

    board: str
    depth: int
    params: dict[str, str]
    rounds: list[Round] = field(default_factory=list)
    moves: int | None = None
    solution: list[int] = field(default_factory=list)

    @property
    def expanded(self) -> int:
        """Nodes expanded, as IDA* on one core expands them."""
        return sum(r.expanded for r in self.rounds)

    @property
    def generated(self) -> int:
        """Nodes generated, as IDA* on one core generates them."""
        return sum(r.generated for r in self.rounds)

    @property
    def work(self) -> int:
        """Nodes expanded by all the jobs and frontiers (the subtrees after a solution included)."""
        return sum(r.work for r in self.rounds)

    @property
    def seconds(self) -> float:
        """Wall time of every round."""
        return sum(r.seconds for r in self.rounds)


def split_search(db: Database, instance, name: str, depth: int, params: dict[str, str], *, workers: int,
                 chunk: int | None, on_round: Callable[[Round], None], split_above: int | None = None) -> SplitResult:
    """IDA* on `instance` split at `depth` into subtree jobs stored under sweeps `name-b<bound>`; calls `on_round` per bound.

    `params` are the heuristic and its options (as `idastar` takes them); a
    bound foreseen to expand fewer than `split_above` nodes (default SPLIT_ABOVE) is searched here.
    PuzzleError unless the board is an N-puzzle and the depth positive.
    """
    problem = problem_for(instance.domain, instance.text)
    heuristic = _heuristic(problem, params, depth)
    result = SplitResult(instance.name, depth, params)
    bound = idastar.search(problem, Limits(max_nodes=0), heuristic).extra["bound"]
    split_above = SPLIT_ABOVE if split_above is None else split_above
    sizes: dict[str, int] = {}  # nodes each job of the last split bound expanded, by prefix
    with nullcontext() if settings().broker_url else job_processes(workers) as runners:
        while result.moves is None:
            started = time.perf_counter()
            foreseen = foreseen_nodes(result.rounds)
            level, deeper = _listing(problem, heuristic, bound, depth, sizes, foreseen, split_above)
            if level.solution is not None or not level.leaves:
                found, next_bound, sweep = level.solution, level.next_bound, None
                counted = (level.expanded, level.generated, 0)
            else:
                sweep = f"{name}-b{bound}"
                prefixes = _prefixes(problem, level)
                rows = _run_bound(db, instance, sweep, prefixes, level, params, workers, chunk, runners)
                found, counted, next_bound = _tally(problem, sweep, level, prefixes, rows)
                sizes = {prefix: row["expanded"] or 0 for prefix, row in rows.items()}
            round_ = Round(bound, sweep, len(level.leaves), deeper, counted[0], counted[1],
                           level.expanded + counted[2], time.perf_counter() - started)
            result.rounds.append(round_)
            on_round(round_)
            if found is not None:
                result.moves, result.solution = len(found), found
            elif next_bound is None:
                raise PuzzleError(f"{instance.name}: no solution at any bound (the search space is exhausted)")
            else:
                bound = next_bound
    return result


def foreseen_nodes(rounds: list[Round]) -> int:
    """The nodes the next bound's iteration should expand: the last one's times the last growth (0 before any)."""
    if not rounds:
        return 0
    last = rounds[-1].expanded
    growth = last / rounds[-2].expanded if len(rounds) > 1 and rounds[-2].expanded else FIRST_GROWTH
    return int(last * growth)


def _listing(problem: Problem, heuristic, bound: int, depth: int, sizes: dict[str, int], foreseen: int,
             split_above: int) -> tuple[subtree.Frontier, int]:
    """The bound's frontier with its big subtrees split further (and how many were), or the whole iteration when
    it is foreseen to expand fewer than `split_above` nodes."""
    if foreseen < split_above:
        return subtree.whole(problem, heuristic, bound), 0
    level = subtree.frontier(problem, heuristic, bound, depth)
    deeper = deeper_splits(_prefixes(problem, level), sizes, foreseen, split_above)
    return subtree.refine(problem, heuristic, level, deeper), len(deeper)


def deeper_splits(prefixes: list[str], sizes: dict[str, int], foreseen: int = 0, split_above: int = 0) -> dict[int, int]:
    """For each prefix whose subtree took more than MAX_SHARE of the last split bound's nodes, how many moves further
    to split it: enough that its parts should take about MAX_SHARE / 2 each (the tree at least doubling per move).

    `sizes` are that bound's jobs' nodes by prefix (a prefix split further then counts its parts); {} before any.
    A subtree foreseen (its share of the bound's `foreseen` nodes) to expand fewer than MAX_SHARE of
    `split_above` is not worth more jobs and stays whole.
    """
    total = sum(sizes.values())
    if not total or not prefixes:
        return {}
    below: Counter[str] = Counter()
    depth = len(prefixes[0])
    for prefix, expanded in sizes.items():
        below[prefix[:depth]] += expanded
    shares = {index: below[prefix] / total for index, prefix in enumerate(prefixes)}
    return {index: math.ceil(math.log2(share / MAX_SHARE)) + 1 for index, share in shares.items()
            if share > MAX_SHARE and share * foreseen >= split_above * MAX_SHARE}


def _prefixes(problem: Problem, level: subtree.Frontier) -> list[str]:
    return ["".join(problem.format_move(m) for m in leaf) for leaf in level.leaves]


def _heuristic(problem: Problem, params: dict[str, str], depth: int):
    if depth < 1:
        raise PuzzleError(f"--depth must be at least 1, not {depth}")
    if not has_in_place(problem.kernels.spec):
        raise PuzzleError("a split search runs IDA* in place: N-puzzle boards only")
    problem.check_heuristic(params["heuristic"], **{k: v for k, v in params.items() if k != "heuristic"})
    return problem.heuristic(params["heuristic"], **{k: v for k, v in params.items() if k != "heuristic"})


def _run_bound(db: Database, instance, sweep: str, prefixes: list[str], level: subtree.Frontier,
               params: dict[str, str], workers: int, chunk: int | None, runners: list[JobRunner] | None) -> dict[str, dict]:
    """Run one job per leaf, in `runners` if given (stopped once the bound's answer is known); the job rows by prefix."""
    values = {**{k: [v] for k, v in params.items()}, "prefix": prefixes, "bound": [level.bound], "split_depth": [level.depth]}
    plan = plan_sweep(sweep, [instance], SweepGrid([SPLIT_ALGORITHM], values))
    stop = threading.Event()

    def settled(reason: str) -> None:
        for runner in runners:
            runner.stop(JobResult.limit(reason))

    watcher = threading.Thread(target=_skip_after_solution, args=(db, sweep, prefixes, stop, settled if runners else None),
                               daemon=True)
    watcher.start()
    try:
        store_and_run(db, plan, rerun=False, workers=workers, chunk=chunk or 1, wait=True, runners=runners, extend=True)
    finally:
        stop.set()
        watcher.join()
    return _rows_by_prefix(db, sweep)


def _tally(problem: Problem, sweep: str, level: subtree.Frontier, prefixes: list[str],
           rows: dict[str, dict]) -> tuple[list[int] | None, tuple[int, int, int], int | None]:
    """A bound's answer from its jobs (`prefixes`: the leaves' moves): (the solution, (expanded, generated) as one
    core counts them and all work, the next bound)."""
    expanded, generated = level.expanded, level.generated  # the frontier's all, unless a subtree holds a solution
    below = [0, 0]
    found = None
    for prefix, before in zip(prefixes, level.before):
        row = rows[prefix]
        if row["outcome"] not in (Outcome.SOLVED, Outcome.FAILED):
            raise PuzzleError(f"sweep {sweep}: subtree {prefix} did not finish ({row['outcome'] or row['state']}:"
                              f" {row['reason']}); run the split again to resume")
        below = [below[0] + row["expanded"], below[1] + row["generated"]]
        if row["outcome"] == Outcome.SOLVED:  # one core stops here: the frontier's nodes after it are not its
            codes = {problem.format_move(move): move for move in range(problem.kernels.max_branching)}
            found = [codes[move] for move in row["solution"].split()]
            expanded, generated = before
            break
    work = sum(row["expanded"] or 0 for row in rows.values())
    beyond = [rows[p]["extra"]["next_bound"] for p in prefixes if rows[p]["extra"].get("next_bound") is not None]
    if level.next_bound is not None:
        beyond.append(level.next_bound)
    return found, (expanded + below[0], generated + below[1], work), min(beyond, default=None)


def _rows_by_prefix(db: Database, sweep: str) -> dict[str, dict]:
    return {row["params"]["prefix"]: row for row in job_rows(db, find_sweep(db, sweep))}


def _skip_after_solution(db: Database, sweep: str, prefixes: list[str], stop: threading.Event,
                         settled: Callable[[str], object] | None = None) -> None:
    """Until `stop`: once a subtree holds a solution, skip the subtrees after it not yet begun; once every subtree
    before it is done too, call `settled` with the reason the jobs still running are no longer needed.

    Every solution within the bound is optimal, so the later subtrees cannot
    change the answer nor one core's counts; the skipped jobs are stored with
    the outcome limit and the reason. Once the subtrees before the solution's
    are done, the bound's answer and counts are known: `settled` stops the
    local job processes, whose jobs (all after the solution's) are stored with
    the outcome limit too.
    """
    skipped_from = len(prefixes)
    while not stop.wait(WATCH_S):
        rows = _rows_by_prefix(db, sweep)
        skipped_from = _skip_after(db, prefixes, rows, skipped_from)
        if settled and skipped_from < len(prefixes) and all(
                rows[p]["outcome"] in (Outcome.SOLVED, Outcome.FAILED) for p in prefixes[:skipped_from]):
            settled(f"stopped: subtree {prefixes[skipped_from]} before it holds a solution")
            settled = None


def _skip_after(db: Database, prefixes: list[str], rows: dict[str, dict], skipped_from: int) -> int:
    """Skip the jobs not yet begun after the first subtree holding a solution, up to `skipped_from` (those after it
    are skipped already); where the skipped ones start now."""
    first = next((i for i, p in enumerate(prefixes) if rows[p]["outcome"] == Outcome.SOLVED), skipped_from)
    if first < skipped_from:
        later = [rows[p]["job_id"] for p in prefixes[first + 1 : skipped_from]]
        skip(db, later, JobResult.limit(f"not searched: subtree {prefixes[first]} before it holds a solution"))
    return min(first, skipped_from)
