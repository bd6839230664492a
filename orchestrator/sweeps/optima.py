"""Known optima: which results prove one, the best proven per board, and the optimum proof that finds the missing ones.

A result proves a board's optimum when it is `solved` by one of slidelab's own
algorithms flagged `optimal` in `puzzles.algorithms.ALGORITHMS`, with one of
its own admissible heuristics if it takes one. A plugin's word is no proof:
a plugin algorithm declared optimal, or a plugin heuristic declared
admissible, only claims shortest solutions (`claims_optimal`), and the
reports check the claim against the optima slidelab knows. `orchestrate boards optimum` runs an optimum proof, an experiment
whose proposer (`OptimumProposer`) proposes a job per board that lacks a known
optimum, with an optimal search that fits the board, and once they are done
stores what their results prove in `boards.known_optimum`.
"""

import hashlib
import json
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from orchestrator.boards.catalogue import instance
from orchestrator.sweeps.definitions import OptimumDefinition
from orchestrator.sweeps.driver import Batch, OnProgress, backend_for, run_experiment
from orchestrator.sweeps.grid import SweepGrid
from orchestrator.sweeps.grid_sweep import GridProposer, start
from orchestrator.sweeps.plan import SweepPlan, plan_sweep
from puzzles.algorithms import ALGORITHMS, find_algorithm
from puzzles.domains import Instance, problem_for
from puzzles.errors import PuzzleError
from puzzles.registry import HEURISTICS, Algorithm, HeuristicEntry, loaded
from puzzles.textio import plural
from workers.store import Database
from workers.store import boards as board_store
from workers.store import sweeps as sweep_store
from workers.store.boards import StoredBoard
from workers.store.sweeps import SweepRow

SWEEP_NAME = "optimum"
BFS_CELLS = 9  # N-puzzles of up to 9 cells (3x3) by BFS: at most 181,440 states


def is_optimal(algorithm: str, params: dict[str, Any], domain: str, text: str) -> bool:
    """True if a solution of this job is a shortest one: an optimal algorithm of slidelab's, its heuristic (if any)
    one of slidelab's admissible ones."""
    entry = ALGORITHMS.get(algorithm)
    if entry is None or entry.origin is not None or not _optimal_search(entry, params):
        return False
    if "heuristic" not in params:
        return True
    heuristic = _heuristic(domain, params["heuristic"])
    return heuristic is not None and heuristic.origin is None and _admissible(domain, text, params["heuristic"])


def claims_optimal(algorithm: str, params: dict[str, Any], domain: str) -> bool:
    """True if a solution of this job is a shortest one by a plugin's word only: a plugin algorithm declared optimal
    (its heuristic, if any, declared admissible), or an optimal algorithm of slidelab's with a plugin heuristic
    declared admissible. False for a plugin not installed here."""
    try:
        entry = find_algorithm(algorithm)  # a plugin file's, loaded
    except PuzzleError:
        return False
    heuristic = _heuristic(domain, params["heuristic"]) if "heuristic" in params else None
    if not _optimal_search(entry, params) or ("heuristic" in params and (heuristic is None or not heuristic.admissible)):
        return False
    return entry.origin is not None or (heuristic is not None and heuristic.origin is not None)


def _optimal_search(entry: Algorithm, params: dict[str, Any]) -> bool:
    """True for an algorithm declared optimal, searching in moves (under the step model a search is optimal in steps,
    not in the moves an optimum counts)."""
    return entry.optimal and params.get("move_model", "slide") == "slide"


def _heuristic(domain: str, name: str) -> HeuristicEntry | None:
    """The domain's heuristic `name`, None if it has none so named."""
    loaded()
    return HEURISTICS.get((domain, name))


def best_optima(db: Database, board_ids: set[str]) -> dict[str, int]:
    """The fewest moves any optimal search of slidelab's found on each board, over the whole database."""
    optimal = [name for name, entry in ALGORITHMS.items() if entry.optimal and entry.origin is None]
    optima: dict[str, int] = {}
    for found in board_store.solved_by(db, board_ids, optimal):
        if is_optimal(found.algorithm, found.params, found.domain, found.text):
            optima[found.board_id] = min(found.moves, optima.get(found.board_id, found.moves))
    return optima


def record_optima(db: Database, board_ids: list[str]) -> dict[str, int]:
    """Store the optimum the results prove for each of the boards that has none stored; those stored, by id."""
    return board_store.store_optima(db, best_optima(db, set(board_ids)))


class OptimumProposer:
    """An optimum proof: its jobs proposed once; once they are done, the optima their results prove stored (`found`)."""

    def __init__(self, db: Database, experiment: SweepRow, jobs: GridProposer, board_ids: list[str]) -> None:
        self.db, self.experiment, self.board_ids, self._jobs = db, experiment, board_ids, jobs
        self.found: dict[str, int] = {}

    def suggest(self) -> Batch | None:
        """The proof's jobs, the first time; then None, with the optima found stored."""
        batch = self._jobs.suggest()
        if batch is None:
            self.found = record_optima(self.db, self.board_ids)
        return batch

    def observe(self) -> None:
        """Nothing to learn before the end."""


def resumed_proof(db: Database, experiment: SweepRow) -> OptimumProposer:
    """The proposer that goes on with a stored optimum proof: its jobs without a result, then the optima stored."""
    jobs = GridProposer(experiment, sweep_store.unfinished_jobs(db, experiment.id))
    return OptimumProposer(db, experiment, jobs, sweep_store.board_ids(db, experiment.id))


def find_optima(db: Database, boards: list[StoredBoard], limits: dict[str, Any], *, workers: int, chunk: int | None,
                on_progress: OnProgress | None = None) -> Iterator[str]:
    """Store the known optimum of every board that lacks one: from the results that prove one, else by an optimum proof.

    Its jobs run here, or on the workers of the settings' broker, and are
    followed to the end (`on_progress` gets its status meanwhile). Yields the
    lines to print: what was known, what the proof found, and the outcomes of
    the boards still lacking an optimum.
    """
    known = record_optima(db, [board.id for board in boards])  # proven by earlier results
    lacking = [instance(board) for board in boards if board.known_optimum is None and board.id not in known]
    if known:
        yield f"{len(known):,} known optima stored from earlier results"
    if not lacking:
        yield f"every one of the {len(boards):,} boards has a known optimum"
        return
    started = start(db, plan_optima(lacking, limits), extend=True, chunk=chunk)  # the boards lacking one join the proof
    yield f"sweep {started.name}: {plural(started.jobs, 'job')}, {started.added:,} new"
    proposer = OptimumProposer(db, started.proposer.experiment, started.proposer, [board.id for board in lacking])
    ended = run_experiment(db, proposer, backend_for(workers), on_progress=on_progress)
    others = board_store.outcomes_lacking_optimum(db, ended.experiment.id, [board.id for board in lacking])
    counts = ", ".join(f"{outcome} {count:,}" for outcome, count in sorted(others.items()))
    hint = f"; the others: {counts} (orchestrate jobs {ended.experiment.name})" if others else ""
    yield f"{len(proposer.found):,} of {len(lacking):,} boards now have a known optimum{hint}"


def optimal_search(board: Instance) -> tuple[str, str | None]:
    """(algorithm, heuristic) of the optimal search that fits the board.

    BFS for Rush Hour and for N-puzzles of up to 9 cells; IDA* with pattern
    databases for larger N-puzzles: `pdb-max` on a square board, else `pdb`
    (each with the size's default partition, built on demand in the cache).
    """
    if board.domain == "rushhour":
        return "bfs", None
    shape = json.loads(board.text)
    if shape["width"] * shape["height"] <= BFS_CELLS:
        return "bfs", None
    return "idastar", "pdb-max" if shape["width"] == shape["height"] else "pdb"


def plan_optima(boards: list[Instance], limits: dict[str, Any]) -> SweepPlan:
    """One optimum proof with a job per board: its optimal search, under `limits`."""
    groups: dict[tuple[str, str | None], list[Instance]] = {}
    for board in boards:
        groups.setdefault(optimal_search(board), []).append(board)
    name = sweep_name(limits)
    plans = [
        plan_sweep(name, members, SweepGrid([algorithm], {"heuristic": [heuristic]} if heuristic else {}), limits)
        for (algorithm, heuristic), members in groups.items()
    ]
    jobs = [job for part in plans for job in part.jobs]
    grids = [grid for part in plans for grid in part.grids]
    return SweepPlan(name, grids, limits, boards, jobs, OptimumDefinition(tuple(grids)))


def sweep_name(limits: dict[str, Any]) -> str:
    """`optimum`, or `optimum-<digest of the limits>`: a sweep keeps the limits it was planned with."""
    given = {name: value for name, value in limits.items() if value is not None}
    if not given:
        return SWEEP_NAME
    return f"{SWEEP_NAME}-{hashlib.sha256(json.dumps(given, sort_keys=True).encode()).hexdigest()[:8]}"


@lru_cache(maxsize=1024)
def _admissible(domain: str, text: str, heuristic: str) -> bool:
    return heuristic in problem_for(domain, text).admissible_heuristics
