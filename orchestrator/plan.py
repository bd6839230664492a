"""Planning a sweep: boards from files, board lists, globs, directories, literal strings or sets, and the job rows.

Everything is validated before anything is written: one bad board, unknown
algorithm or parameter, or empty range aborts the sweep with a `PuzzleError`.
Each job has a deterministic key, so planning the same sweep again adds only the
jobs it lacks.
"""

import glob
import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from orchestrator.boardsets import set_boards, set_name, store_boards
from orchestrator.grid import combinations
from puzzles.domains import Instance, load_instances, problem_for
from puzzles.errors import PuzzleError
from puzzles.npuzzle import check_goal
from puzzles.solver import SEEDS, algorithm_spec, heuristic_options, with_domain_heuristic
from workers.db import Job, Result, Sweep
from workers.store import FINAL

_GLOB_CHARS = re.compile(r"[*?\[]")
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
INSERT_CHUNK = 5_000  # rows per INSERT statement


@dataclass
class SweepPlan:
    """A sweep's name, its grid as given, its limits and its job rows."""

    name: str
    spec: dict[str, Any]
    limits: dict[str, Any]
    boards: list[Instance]
    jobs: list[dict[str, Any]] = field(default_factory=list)


def board_sources(sources: list[str]) -> list[str]:
    """Files, directories (their files, sorted) and globs expanded; anything else (a literal board, FILE#ID) kept."""
    expanded: list[str] = []
    for source in sources:
        if os.path.isdir(source):
            files = sorted(str(p) for p in Path(source).iterdir() if p.is_file() and not p.name.startswith("."))
            if not files:
                raise PuzzleError(f"{source}: the directory holds no board files")
            expanded += files
        elif not os.path.exists(source) and _GLOB_CHARS.search(source) and "\n" not in source:
            matches = sorted(glob.glob(source))
            if not matches:
                raise PuzzleError(f"{source}: no file matches")
            expanded += board_sources(matches)
        else:
            expanded.append(source)
    return expanded


def load_boards(sources: list[str], *, goal: str | None = None, engine: Engine | None = None) -> list[Instance]:
    """Every board of the sources, validated; a board given twice is kept once.

    A board list gives a board per row, `set:NAME` the set's boards in order,
    read from the database `engine`. `goal` is the goal of every N-puzzle board
    that does not give its own (a set's boards have theirs); Rush Hour boards
    ignore it.
    """
    if not sources:
        raise PuzzleError("no boards given (--boards FILE|DIR|GLOB|BOARD|set:NAME)")
    if goal is not None:
        check_goal(goal)
    boards = {}
    for source in sources:
        for instance in _source_boards(source, goal, engine):
            boards.setdefault(instance.id, instance)
    return list(boards.values())


def _source_boards(source: str, goal: str | None, engine: Engine | None) -> list[Instance]:
    """The boards of one source: a set's from the database, else those of its files or literal board."""
    name = set_name(source)
    if name is None:
        return [instance for path in board_sources([source]) for instance in load_instances(path, goal=goal)]
    if engine is None:
        raise PuzzleError(f"{source}: a board set is read from the results database, and none was given")
    return set_boards(engine, name)


def parse_size(text: str) -> int:
    """Bytes of a size such as `512M`, `2G`, `1.5GiB` or `1000000`."""
    match = _SIZE.match(text)
    if not match:
        raise PuzzleError(f"--memory-limit: {text!r} is not a size (write e.g. 512M or 2G)")
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


def plan_sweep(
    name: str,
    boards: list[Instance],
    algorithms: list[str],
    params: dict[str, list[Any]],
    *,
    seeds: list[int] | None = None,
    repeat: int = 1,
    limits: dict[str, Any] | None = None,
    seed_namespace: str | None = None,
) -> SweepPlan:
    """Every job of the grid on every board; PuzzleError for anything the solver would refuse.

    A randomized algorithm runs once per seed of `seeds`, or `repeat` times with
    seeds derived from the job and the `seed_namespace` (by default the sweep's
    name; a replay under another name keeps the original's); a deterministic one
    runs once per seed or repeat, without a seed.
    """
    if seeds is not None and repeat != 1:
        raise PuzzleError("give --seeds or --repeat, not both")
    if repeat < 1:
        raise PuzzleError(f"--repeat must be at least 1, not {repeat}")
    for seed in seeds or []:
        if not 0 <= seed < SEEDS:
            raise PuzzleError(f"--seeds: a seed must be between 0 and {SEEDS - 1}, not {seed}")
    grid = combinations(algorithms, params)
    problems = {board.id: problem_for(board.domain, board.text) for board in boards}
    namespace = seed_namespace or name
    spec = {
        "algorithms": algorithms, "params": params, "boards": [b.name for b in boards], "seeds": seeds, "repeat": repeat,
        "seed_namespace": namespace,
    }
    plan = SweepPlan(name, spec, limits or {}, boards)
    checked: set[tuple] = set()
    for board in boards:
        for algorithm, bound in grid:
            randomized = algorithm_spec(algorithm).randomized
            values = with_domain_heuristic(problems[board.id], algorithm, bound, given=params)
            _check_heuristic(board, problems[board.id], values, checked)
            text = json.dumps(values, sort_keys=True, separators=(",", ":"))
            for seed, index in _runs(randomized, seeds, repeat):
                plan.jobs.append(_job(name, namespace, board.id, algorithm, text, seed, index, randomized))
    return plan


def store_plan(engine: Engine, plan: SweepPlan, *, rerun: bool = False) -> tuple[int, int]:
    """Write the sweep, its boards and the jobs it lacks: (sweep id, jobs added).

    With `rerun`, the results of the plan's jobs are deleted so they run again.
    """
    insert = postgresql.insert if engine.dialect.name == "postgresql" else sqlite.insert
    with Session(engine) as session, session.begin():
        sweep_id = _sweep(session, plan, rerun)
        store_boards(session, plan.boards)
        before = _job_count(session, sweep_id)
        rows = [{**job, "sweep_id": sweep_id} for job in plan.jobs]
        for start in range(0, len(rows), INSERT_CHUNK):
            session.execute(insert(Job).on_conflict_do_nothing(index_elements=["job_key"]), rows[start : start + INSERT_CHUNK])
        added = _job_count(session, sweep_id) - before
        if rerun:
            _reset(session, sweep_id, [job["job_key"] for job in plan.jobs])
    return sweep_id, added


def unfinished_jobs(engine: Engine, sweep_id: int, *, pending_only: bool = False) -> list[int]:
    """Ids of the sweep's jobs without a final result (or only those never queued), in id order."""
    unfinished = Job.status == "pending" if pending_only else Job.status.not_in(FINAL)
    with Session(engine) as session:
        return list(session.scalars(select(Job.id).where(Job.sweep_id == sweep_id, unfinished).order_by(Job.id)))


def find_sweep(engine: Engine, name: str) -> Sweep:
    """The sweep called `name`; PuzzleError naming the known sweeps if there is none."""
    with Session(engine) as session:
        sweep = session.scalar(select(Sweep).where(Sweep.name == name))
        if sweep is None:
            known = list(session.scalars(select(Sweep.name).order_by(Sweep.id.desc()).limit(5)))
            hint = f" (recent: {', '.join(known)})" if known else " (there are none yet)"
            raise PuzzleError(f"no sweep named {name!r}{hint}")
        session.expunge(sweep)
        return sweep


def _check_heuristic(board: Instance, problem, values: dict[str, Any], checked: set[tuple]) -> None:
    """PuzzleError if the board's domain lacks the job's heuristic or refuses its options (checked once per board and choice)."""
    if "heuristic" not in values:
        return
    options = heuristic_options(values)
    choice = (board.id, values["heuristic"], *sorted(options.items()))
    if choice not in checked:
        try:
            problem.check_heuristic(values["heuristic"], **options)
        except PuzzleError as err:
            raise PuzzleError(f"board {board.name}: {err}") from None
        checked.add(choice)


def _runs(randomized: bool, seeds: list[int] | None, repeat: int) -> list[tuple[int | None, int]]:
    """(seed, repeat index) of each run of one grid point: seeds only for randomized algorithms."""
    if seeds is None:
        return [(None, index) for index in range(repeat)]
    if randomized:
        return [(seed, 0) for seed in seeds]
    return [(None, index) for index in range(len(seeds))]


def _job(
    name: str, namespace: str, board_id: str, algorithm: str, params: str, seed: int | None, repeat: int, randomized: bool
) -> dict[str, Any]:
    key = _digest(name, board_id, algorithm, params, seed, repeat)
    if randomized and seed is None:
        seed = int(_digest(namespace, board_id, algorithm, params, seed, repeat)[:8], 16) % SEEDS
    return {"board_id": board_id, "algorithm": algorithm, "params": params, "seed": seed, "repeat": repeat, "job_key": key}


def _digest(*identity: Any) -> str:
    return hashlib.sha256(json.dumps(list(identity)).encode()).hexdigest()


def _sweep(session: Session, plan: SweepPlan, rerun: bool) -> int:
    sweep = session.scalar(select(Sweep).where(Sweep.name == plan.name))
    if sweep is None:
        sweep = Sweep(name=plan.name, spec=plan.spec, limits=plan.limits)
        session.add(sweep)
        session.flush()
        return sweep.id
    namespace = sweep.spec.get("seed_namespace", sweep.name)
    if namespace != plan.spec.get("seed_namespace", plan.name):
        raise PuzzleError(
            f"sweep {plan.name!r} derives its seeds from {namespace!r} (it was replayed from a spec):"
            " extend it with orchestrate sweep --from-spec FILE, or give another --name"
        )
    if sweep.limits != plan.limits and not rerun:
        raise PuzzleError(
            f"sweep {plan.name!r} was planned with limits {limits_text(sweep.limits)}, not {limits_text(plan.limits)}:"
            " give the same limits, another --name, or --rerun to run it again under the new ones"
        )
    sweep.spec, sweep.limits = plan.spec, plan.limits
    return sweep.id


def _reset(session: Session, sweep_id: int, keys: list[str]) -> None:
    for start in range(0, len(keys), INSERT_CHUNK):
        ids = select(Job.id).where(Job.sweep_id == sweep_id, Job.job_key.in_(keys[start : start + INSERT_CHUNK]))
        session.execute(delete(Result).where(Result.job_id.in_(ids)))
        session.execute(
            update(Job)
            .where(Job.id.in_(ids))
            .values(status="pending", attempts=0, worker_host=None, started_at=None, finished_at=None)
        )


def _job_count(session: Session, sweep_id: int) -> int:
    return session.scalar(select(func.count()).select_from(Job).where(Job.sweep_id == sweep_id))


def limits_text(limits: dict[str, Any]) -> str:
    """The limits given, as `name=value` pairs, or "none"."""
    given = {name: value for name, value in limits.items() if value is not None}
    return ", ".join(f"{name}={value}" for name, value in sorted(given.items())) or "none"
