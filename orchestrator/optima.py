"""Known optima: which results prove one, the best proven per board, and the sweep that finds the missing ones.

A result proves a board's optimum when it is `solved` by an algorithm flagged
`optimal` in `puzzles.solver.ALGORITHMS`, with an admissible heuristic if it
takes one. `orchestrate boards optimum` plans a job per board that lacks a known
optimum, with an optimal search that fits the board, runs it like any sweep, and
stores what the results prove in `boards.known_optimum`.
"""

import hashlib
import json
from functools import lru_cache
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from orchestrator.boardsets import store_optima
from orchestrator.plan import SweepPlan, plan_sweep
from puzzles.domains import Instance, problem_for
from puzzles.solver import ALGORITHMS
from workers.db import Board, Job, Result

SWEEP_NAME = "optimum"
BFS_CELLS = 9  # N-puzzles of up to 9 cells (3x3) by BFS: at most 181,440 states


def is_optimal(algorithm: str, params: dict[str, Any], domain: str, text: str) -> bool:
    """True if a solution of this job is a shortest one: an optimal algorithm, its heuristic (if any) admissible."""
    spec = ALGORITHMS.get(algorithm)
    if spec is None or not spec.optimal:
        return False
    return "heuristic" not in params or _admissible(domain, text, params["heuristic"])


def best_optima(session: Session, board_ids: set[str]) -> dict[str, int]:
    """The fewest moves any optimal search found on each board, over the whole database."""
    optimal = [name for name, spec in ALGORITHMS.items() if spec.optimal]
    rows = session.execute(
        select(Job.board_id, Job.algorithm, Job.params, Board.domain, Board.canonical_text, Result.moves)
        .join(Result, Result.job_id == Job.id)
        .join(Board, Job.board_id == Board.id)
        .where(Job.board_id.in_(board_ids), Job.algorithm.in_(optimal), Result.status == "solved")
    ).all()
    optima: dict[str, int] = {}
    for board_id, algorithm, params, domain, text, moves in rows:
        if is_optimal(algorithm, json.loads(params), domain, text):
            optima[board_id] = min(moves, optima.get(board_id, moves))
    return optima


def record_optima(engine: Engine, board_ids: list[str]) -> dict[str, int]:
    """Store the optimum the results prove for each of the boards that has none stored; those stored, by id."""
    with Session(engine) as session, session.begin():
        proven = best_optima(session, set(board_ids))
        lacking = session.scalars(select(Board.id).where(Board.id.in_(proven), Board.known_optimum.is_(None)))
        stored = {board_id: proven[board_id] for board_id in lacking}
        store_optima(session, stored)
    return stored


def unresolved(engine: Engine, sweep_id: int, board_ids: list[str]) -> dict[str, int]:
    """The result statuses of the sweep's jobs on those of the boards that still lack a known optimum, counted."""
    with Session(engine) as session:
        rows = session.execute(
            select(Result.status, func.count())
            .join(Job, Result.job_id == Job.id)
            .join(Board, Job.board_id == Board.id)
            .where(Job.sweep_id == sweep_id, Job.board_id.in_(board_ids), Board.known_optimum.is_(None))
            .group_by(Result.status)
        )
        return dict(rows.all())


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
    """One sweep with a job per board: its optimal search, under `limits`."""
    groups: dict[tuple[str, str | None], list[Instance]] = {}
    for board in boards:
        groups.setdefault(optimal_search(board), []).append(board)
    name = sweep_name(limits)
    plans = [
        plan_sweep(name, members, [algorithm], {"heuristic": [heuristic]} if heuristic else {}, limits=limits)
        for (algorithm, heuristic), members in groups.items()
    ]
    jobs = [job for part in plans for job in part.jobs]
    return SweepPlan(name, {"optimum": [part.spec for part in plans]}, limits, boards, jobs)


def sweep_name(limits: dict[str, Any]) -> str:
    """`optimum`, or `optimum-<digest of the limits>`: a sweep keeps the limits it was planned with."""
    given = {name: value for name, value in limits.items() if value is not None}
    if not given:
        return SWEEP_NAME
    return f"{SWEEP_NAME}-{hashlib.sha256(json.dumps(given, sort_keys=True).encode()).hexdigest()[:8]}"


@lru_cache(maxsize=1024)
def _admissible(domain: str, text: str, heuristic: str) -> bool:
    return heuristic in problem_for(domain, text).admissible_heuristics
