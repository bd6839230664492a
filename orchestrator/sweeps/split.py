"""A split search's proposer: one IDA* search spread over the workers, bound by bound, as subtree jobs.

For each bound of IDA*, this process lists the nodes `depth` moves below the
start whose f stays within the bound (`puzzles.search.subtree.frontier`); each
becomes a job, `idastar-subtree` below that node with that bound, of the split
search's experiment (one row of kind split holding every bound's jobs), run by
the driver on its backend like any batch. The next bound is the least f any
job, or the frontier, saw beyond this one. A job's parameters (the prefix, the
bound, the split's depth) say where it lies in the split search. A bound whose
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
nor one core's counts. Once every subtree before it is done too, the bound is
settled (`BoundWatch`): the driver stops its local job processes, the jobs
they held stored as limit as well (Celery workers finish theirs); the nodes
of the later subtrees that finished are reported apart, as work. Resuming a
split search lists its bounds again: the subtree jobs already done are not
run again.
"""

import math
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from orchestrator.boards.catalogue import instance
from orchestrator.sweeps.definitions import SplitDefinition
from orchestrator.sweeps.driver import Batch
from orchestrator.sweeps.grid import SweepGrid
from orchestrator.sweeps.plan import plan_sweep, store_plan
from puzzles.domains import Instance, problem_for
from puzzles.errors import PuzzleError
from puzzles.kernels import has_in_place
from puzzles.problem import Problem
from puzzles.result import Limits, Outcome
from puzzles.search import idastar, subtree
from workers.store import Database
from workers.store.jobs import skip
from workers.store.records import JobResult, JobRow
from workers.store.studies import job_ids, stored_boards
from workers.store.sweeps import SweepRow, results_of

SPLIT_ALGORITHM = "idastar-subtree"
SPLIT_ABOVE = 50_000_000  # nodes: an iteration foreseen to expand fewer runs here (seconds of one core)
FIRST_GROWTH = 10  # the growth foreseen from the first bound to the second, before any is measured
MAX_SHARE = 1 / 64  # a subtree that expanded more of its bound's nodes than this is split further at the next bound


@dataclass(frozen=True)
class BoundRound:
    """One bound of a split search: where it was searched, its subtrees and counts."""

    bound: int
    experiment: str | None  # the split search's experiment when subtree jobs ran; None when this process settled it
    subtrees: int
    deeper: int  # subtrees of the split's depth split further
    expanded: int  # as one core counts them
    generated: int
    work: int  # nodes expanded by every job of the bound, and the frontier
    seconds: float
    depth: int  # the split's


@dataclass
class SplitResult:
    """A split search: how it was split, its rounds, and its answer with one core's node counts."""

    board: str
    depth: int
    params: dict[str, str]
    rounds: list[BoundRound] = field(default_factory=list)
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


class BoundWatch:
    """A split bound's subtree jobs (`ids`, in the depth-first order of their `prefixes`) as they finish: the later
    subtrees skipped once one holds a solution, and the bound settled once every subtree before it is done too."""

    def __init__(self, db: Database, prefixes: list[str], ids: list[int]) -> None:
        self.db, self.prefixes, self.ids = db, prefixes, ids
        self.skipped_from = len(prefixes)
        self.settled = False

    def rows(self) -> dict[str, JobRow]:
        """The bound's jobs with their results, by prefix."""
        return {row.params["prefix"]: row for row in results_of(self.db, self.ids)}

    def look(self) -> str | None:
        """Skip the subtrees not yet begun after the first holding a solution; the reason the jobs still running are
        no longer needed, the first time every subtree before the solution's is done, else None.

        Every solution within the bound is optimal, so the later subtrees
        cannot change the answer nor one core's counts; the skipped jobs are
        stored with the outcome limit and the reason.
        """
        rows = self.rows()
        first = next((i for i, p in enumerate(self.prefixes) if rows[p].outcome == Outcome.SOLVED), self.skipped_from)
        if first < self.skipped_from:
            later = [rows[p].job_id for p in self.prefixes[first + 1 : self.skipped_from]]
            skip(self.db, later, JobResult.limit(f"not searched: subtree {self.prefixes[first]} before it holds a solution"))
            self.skipped_from = first
        if self.settled or self.skipped_from == len(self.prefixes) or not all(
                rows[p].outcome in (Outcome.SOLVED, Outcome.FAILED) for p in self.prefixes[: self.skipped_from]):
            return None
        self.settled = True
        return f"stopped: subtree {self.prefixes[self.skipped_from]} before it holds a solution"


@dataclass
class _Bound:
    """The bound whose subtree jobs run: its listing, its jobs and when it began."""

    level: subtree.Frontier
    deeper: int
    watch: BoundWatch
    started: float


OnRound = Callable[[BoundRound], None]


class SplitProposer:
    """Proposes a bound's subtree jobs, learns the bound's answer from them, then proposes the next bound's; bounds
    foreseen small are searched here, whole. `result` is the search's answer once it proposes nothing more."""

    def __init__(self, db: Database, experiment: SweepRow, instance: Instance, definition: SplitDefinition,
                 on_round: OnRound) -> None:
        self.db, self.experiment, self.instance, self.definition = db, experiment, instance, definition
        self.on_round = on_round
        self.problem = problem_for(instance.domain, instance.text)
        self.heuristic = _heuristic(self.problem, definition.params, definition.depth)
        self.result = SplitResult(instance.name, definition.depth, definition.params)
        self.bound: int | None = idastar.search(self.problem, Limits(max_nodes=0), self.heuristic).extra["bound"]
        self.sizes: dict[str, int] = {}  # nodes each job of the last split bound expanded, by prefix
        self.running: _Bound | None = None

    def suggest(self) -> Batch | None:
        """The next split bound's subtree jobs (the bounds before it searched here, if small); None once solved."""
        if self.running is not None:
            self._tally(self.running)
            self.running = None
        while self.result.moves is None and self.bound is not None:
            started = time.perf_counter()
            level, deeper = _listing(self.problem, self.heuristic, self.bound, self.definition.depth, self.sizes,
                                     foreseen_nodes(self.result.rounds), self.definition.split_above)
            if level.solution is None and level.leaves:
                prefixes = _prefixes(self.problem, level)
                self.running = _Bound(level, deeper, BoundWatch(self.db, prefixes, self._store(level, prefixes)), started)
                return Batch(self.running.watch.ids, chunk=1)
            self._settled(BoundRound(level.bound, None, len(level.leaves), deeper, level.expanded, level.generated,
                                     level.expanded, time.perf_counter() - started, self.definition.depth),
                          level.solution, level.next_bound)
        return None

    def observe(self) -> str | None:
        """Skip the subtrees after a solution; the reason the bound's jobs still running are not needed once settled."""
        return self.running.watch.look() if self.running is not None else None

    def _store(self, level: subtree.Frontier, prefixes: list[str]) -> list[int]:
        """Store the bound's subtree jobs in the split search's experiment; their ids, in the prefixes' order."""
        values: dict[str, list[Any]] = {**{k: [v] for k, v in self.definition.params.items()}, "prefix": list(prefixes),
                                        "bound": [level.bound], "split_depth": [level.depth]}
        plan = plan_sweep(self.experiment.name, [self.instance], SweepGrid([SPLIT_ALGORITHM], values))
        plan.definition = self.definition
        store_plan(self.db, plan, extend=True)
        ids = job_ids(self.db, [job.job_key for job in plan.jobs])
        return [ids[job.job_key] for job in plan.jobs]

    def _tally(self, running: _Bound) -> None:
        rows = running.watch.rows()
        found, counted, next_bound = _tally(self.problem, self.experiment.name, running.level, running.watch.prefixes, rows)
        self.sizes = {prefix: row.result.expanded if row.result is not None else 0 for prefix, row in rows.items()}
        level = running.level
        self._settled(BoundRound(level.bound, self.experiment.name, len(level.leaves), running.deeper, counted[0],
                                 counted[1], level.expanded + counted[2], time.perf_counter() - running.started,
                                 self.definition.depth), found, next_bound)

    def _settled(self, bound: BoundRound, found: list[int] | None, next_bound: int | None) -> None:
        self.result.rounds.append(bound)
        self.on_round(bound)
        if found is not None:
            self.result.moves, self.result.solution = len(found), found
        elif next_bound is None:
            raise PuzzleError(f"{self.instance.name}: no solution at any bound (the search space is exhausted)")
        self.bound = next_bound


def split_definition(instance: Instance, depth: int, params: dict[str, str], split_above: int | None) -> SplitDefinition:
    """The definition of a split search of `instance`; PuzzleError unless the board is an N-puzzle, the heuristic
    one of its own, and the depth positive."""
    _heuristic(problem_for(instance.domain, instance.text), params, depth)
    return SplitDefinition(instance.name, instance.id, depth, params, SPLIT_ABOVE if split_above is None else split_above)


def resumed_split(db: Database, experiment: SweepRow, on_round: OnRound) -> SplitProposer:
    """The proposer that goes on with a stored split search: its bounds listed again, the jobs done not run again."""
    definition = SplitDefinition.from_json(experiment.definition)
    board = stored_boards(db, [definition.board_id])[0]
    return SplitProposer(db, experiment, instance(board), definition, on_round)


def foreseen_nodes(rounds: list[BoundRound]) -> int:
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


def _tally(problem: Problem, experiment: str, level: subtree.Frontier, prefixes: list[str],
           rows: dict[str, JobRow]) -> tuple[list[int] | None, tuple[int, int, int], int | None]:
    """A bound's answer from its jobs (`prefixes`: the leaves' moves): (the solution, (expanded, generated) as one
    core counts them and all work, the next bound)."""
    expanded, generated = level.expanded, level.generated  # the frontier's all, unless a subtree holds a solution
    below = [0, 0]
    found = None
    for prefix, before in zip(prefixes, level.before):
        result = _finished(experiment, prefix, rows[prefix])
        below = [below[0] + result.expanded, below[1] + result.generated]
        if result.outcome == Outcome.SOLVED:  # one core stops here: the frontier's nodes after it are not its
            codes = {problem.format_move(move): move for move in range(problem.kernels.max_branching)}
            found = [codes[move] for move in (result.solution or "").split()]
            expanded, generated = before
            break
    results = {prefix: row.result for prefix, row in rows.items() if row.result is not None}
    work = sum(result.expanded for result in results.values())
    beyond = [results[p].extra["next_bound"] for p in prefixes
              if p in results and results[p].extra.get("next_bound") is not None]
    if level.next_bound is not None:
        beyond.append(level.next_bound)
    return found, (expanded + below[0], generated + below[1], work), min(beyond, default=None)


def _finished(experiment: str, prefix: str, row: JobRow) -> JobResult:
    """The result of a subtree's job that searched it through (solved or failed); PuzzleError for any other."""
    if row.result is None or row.result.outcome not in (Outcome.SOLVED, Outcome.FAILED):
        said = f"{row.result.outcome}: {row.result.reason}" if row.result is not None else f"{row.state}: no result"
        raise PuzzleError(f"{experiment}: subtree {prefix} did not finish ({said}); continue with: orchestrate resume"
                          f" {experiment}")
    return row.result
