"""Experiments from Python: run a sweep, a study or a split search, resume or cancel any of them, read their status.

    from slidelab.experiments import sweep, sweep_plan, status
    plan = sweep_plan("bfs", boards=["data/boards/rushhour/"], name="bfs-all")
    ended = sweep(plan, workers=2)                 # runs here (or queues on the broker), returns how it ended
    ended.status.phase                             # "complete"

Every experiment, whatever its kind, runs through one driver
(`orchestrator.sweeps.driver`): its kind's proposer says what to run, the
local pool or the Celery queue runs it. Progress goes to `on_progress` (the
experiment's `SweepStatus` as it runs), nothing is printed. Each function takes
`db`, a database URL or an open `Database` (default: the environment's
SLIDELAB_DATABASE_URL), and `broker`, a broker URL for Celery workers (default:
the environment's SLIDELAB_BROKER_URL; none: the jobs run here), and raises
`PuzzleError` for bad input, with a one-line message.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orchestrator.sweeps import grid_sweep, optima, spec_file
from orchestrator.sweeps import study as studies
from orchestrator.sweeps.driver import ExperimentStatus, OnNote, OnProgress, backend_for, check_runnable, follow, run_experiment
from orchestrator.sweeps.grid import SweepGrid
from orchestrator.sweeps.job_limits import job_limits
from orchestrator.sweeps.lookups import find_sweep, newest_sweep
from orchestrator.sweeps.plan import SweepPlan, grid_plan, settle_plugins
from orchestrator.sweeps.sources import load_boards, needs_database
from orchestrator.sweeps.study import OnTold, StudyProposer, StudySpec
from orchestrator.sweeps.tune_objective import parse_scoring
from orchestrator.sweeps.tune_space import parse_space
from puzzles.algorithms import canonical_name
from puzzles.errors import PuzzleError
from slidelab.connection import DbArg, database
from workers.settings import settings
from workers.store import Database
from workers.store import studies as study_store
from workers.store import sweeps as sweep_store
from workers.store.jobs import cancelled_among
from workers.store.progress import SweepStatus, sweep_status
from workers.store.sweeps import Cancelled, ExperimentKind, SweepRow, stopping, uncancel

if TYPE_CHECKING:  # a split search's kernels load only where one runs: `status` and `cancel` stay light
    from orchestrator.sweeps.split import BoundRound, OnRound, SplitResult

__all__ = ["Cancel", "Resumed", "StudyOutcome", "cancel", "resume", "split", "status", "sweep", "sweep_plan", "tune"]
CORES = os.cpu_count() or 1


def sweep_plan(algorithms: str | None = None, params: dict[str, str] | None = None, boards: list[str] | None = None, *,
               name: str | None = None, goal: str | None = None, repeat: int = 1, seeds: str | None = None,
               time_limit: float | None = None, max_nodes: int | None = None, memory_limit: str | None = None,
               from_spec: Path | None = None, db: DbArg = None, write: bool = True) -> SweepPlan:
    """The plan of a sweep: every algorithm (a comma list, `beam,astar`) with every combination of the `params`' values
    (texts such as `1..50:5`) on every board of `boards` (files, directories, globs, literal boards, `set:NAME`);
    or the sweep a spec file defines (`from_spec`, under its name or `name`). Nothing is run; `write`: a board set the
    database lacks may be imported."""
    if from_spec is not None:
        return spec_file.plan_from_spec(spec_file.read_spec(from_spec), name, str(from_spec))
    if algorithms is None:
        raise PuzzleError("give --algo (or --from-spec FILE)")
    grid = SweepGrid.from_options(algorithms, params or {}, seeds, repeat)
    sources = boards or []
    catalogue = database(db, existing=not write) if needs_database(sources) else None
    limits = job_limits(time_limit, max_nodes, memory_limit)
    return grid_plan(grid, sources, name, limits, catalogue, goal=goal, write=write)


def sweep(plan: SweepPlan, *, workers: int = CORES, chunk: int | None = None, wait: bool = True, rerun: bool = False,
          extend: bool = False, plugin_changed: str | None = None, db: DbArg = None, broker: str | None = None,
          on_stored: Callable[[grid_sweep.Started], None] | None = None,
          on_progress: OnProgress | None = None, on_note: OnNote | None = None) -> ExperimentStatus:
    """Store the plan's sweep (`extend`: into a sweep of that name with another grid; `rerun`: its done jobs run
    again) and run its jobs without a result: here in `workers` job processes, or on the broker's Celery workers
    (followed to the end with `wait`, else only queued). KeyboardInterrupt leaves the rest to `resume`.

    If a plugin changed since the sweep was stored, its done jobs that the other version made stop it with a
    PuzzleError naming them, unless `plugin_changed` is `rerun` (they run again) or `keep` (their results stay)."""
    results = database(db, broker)
    check_runnable(algorithm for grid in plan.grids for algorithm in grid.algorithms)
    started = grid_sweep.start(results, plan, rerun=rerun, extend=extend, chunk=chunk, plugin_changed=plugin_changed)
    if on_stored is not None:
        on_stored(started)
    return run_experiment(results, started.proposer, backend_for(workers, wait=wait), on_progress=on_progress,
                          on_note=on_note)


@dataclass(frozen=True)
class StudyOutcome:
    """How a study's run ended: its status, and the Optuna study (`optuna.Study`) with its trials."""

    ended: ExperimentStatus
    study: Any


def tune(name: str, algorithm: str, space: dict[str, str], boards: list[str], *, objective: str = "moves",
         aggregate: str = "mean", unsolved: str = "fail", trials: int = 20, sampler: str = "tpe", pruner: str = "none",
         seed: int | None = None, seeds: str | None = None, repeat: int = 1, parallel: int | None = None,
         goal: str | None = None, time_limit: float | None = None, max_nodes: int | None = None,
         memory_limit: str | None = None, workers: int = CORES, db: DbArg = None, broker: str | None = None,
         on_opened: Callable[[Any, int], None] | None = None, on_told: OnTold | None = None,
         on_progress: OnProgress | None = None) -> StudyOutcome:
    """Search an algorithm's parameters with Optuna: each trial a point of `space` (ranges as `sweep` writes them,
    `log:1..1000`, choices, a fixed value) run as ordinary jobs on every board, its value the `objective` over them.

    The same name again continues the study up to `trials` (given the same
    definition). `on_opened` gets the study and its trial count (the grid
    sampler's may be fewer) before the first trial; `on_told` each trial (an
    `optuna.trial.FrozenTrial`) as it is told, with how: complete, pruned, fail.
    """
    if not boards:
        raise PuzzleError("give the study's boards: --boards FILES, DIRECTORIES or set:NAME")
    algorithm = canonical_name(algorithm)
    dimensions = parse_space(algorithm, space)
    scoring = parse_scoring(objective, aggregate, unsolved)
    grid = SweepGrid.from_options(algorithm, {}, seeds, repeat)
    limits = job_limits(time_limit, max_nodes, memory_limit)
    studies.make_sampler(sampler, seed, dimensions)
    studies.make_pruner(pruner)
    points = studies.grid_points(sampler, dimensions)
    results = database(db, broker)
    check_runnable([algorithm])
    instances = load_boards(boards, goal=goal, db=results)
    spec = StudySpec(name, algorithm, dimensions, scoring, instances, limits, grid.seeds, grid.repeat, sampler, seed,
                     pruner, min(trials, points) if points is not None else trials)
    studies.check_study(results, spec)
    spec.jobs({d.name: d.low if d.low is not None else d.choices[0] for d in dimensions})  # the planner's checks
    if scoring.aggregate == "gmean-ratio":
        missing = [board.name for board in instances if study_store.optima(results, [board.id]).get(board.id) is None]
        if missing:
            raise PuzzleError(f"--aggregate gmean-ratio needs each board's known optimum: {', '.join(missing[:3])}"
                              " have none (orchestrate sweep --algo bfs finds them)")
    return _run_study(results, spec, parallel, workers, on_opened, on_told, on_progress)


def split(board: str, *, depth: int = 8, heuristic: str = "pdb-max", pdb: str | None = None, name: str | None = None,
          split_above: int | None = None, goal: str | None = None, workers: int = CORES, db: DbArg = None,
          broker: str | None = None, on_round: OnRound | None = None, on_progress: OnProgress | None = None) -> SplitResult:
    """Solve one N-puzzle board with IDA* spread over the workers: per bound, a job per subtree `depth` moves below
    the start, all of them in one experiment of kind split (default name `split-<board>-d<depth>`). The answer and
    node counts are those of IDA* on one core; `on_round` gets each bound as it is settled."""
    results = database(db, broker)
    found = load_boards([board], goal=goal, db=results)[0]
    params = {"heuristic": heuristic, **({"pdb": pdb} if pdb else {})}
    from orchestrator.sweeps import split as split_search

    definition = split_search.split_definition(found, depth, params, split_above)
    stem = name or f"split-{found.name}-d{depth}"
    existing = sweep_store.find(results, stem)
    if existing is not None and (existing.kind != ExperimentKind.SPLIT or existing.definition != definition.to_json()):
        what = "another split search" if existing.kind == ExperimentKind.SPLIT else existing.kind.noun
        raise PuzzleError(f"{stem!r} names {what}: give the split search another --name")
    sweep_store.save(results, stem, definition.kind, definition.to_json(), {}, [found], [])
    proposer = split_search.SplitProposer(results, find_sweep(results, stem), found, definition, on_round or _ignore)
    run_experiment(results, proposer, backend_for(workers), on_progress=on_progress)
    return proposer.result


@dataclass(frozen=True)
class Resumed:
    """How a resumed experiment ended, with what the resume did first: the cancelled jobs it made pending again, the
    jobs it left to the live workers holding them, and, for a split search, its answer."""

    ended: ExperimentStatus
    uncancelled: int
    held: int = 0
    split: SplitResult | None = None
    study: Any = None


def resume(name: str, *, workers: int = CORES, chunk: int | None = None, force: bool = False, wait: bool = True,
           plugin_changed: str | None = None, db: DbArg = None, broker: str | None = None,
           on_round: OnRound | None = None, on_told: OnTold | None = None,
           on_progress: OnProgress | None = None) -> Resumed:
    """Go on with an experiment of any kind stopped by Ctrl-C, a crash or `cancel`: a sweep or an optimum proof runs
    its jobs without a result (those live workers hold only with `force`), a study goes on to its trial count, a
    split search lists its bounds again (the jobs done are not run again).

    A sweep's jobs take the plugins installed now: done jobs another version made stop it, as in `sweep`, unless
    `plugin_changed` is `rerun` or `keep`."""
    results = database(db, broker)
    experiment = find_sweep(results, name)
    if experiment.kind == ExperimentKind.GRID:
        check_runnable(SweepGrid.from_json(experiment.definition).algorithms)
        settle_plugins(results, experiment, plugin_changed)
    if experiment.kind == ExperimentKind.STUDY:
        spec = StudySpec.stored(results, experiment)
        check_runnable([spec.algorithm])
        study, storage = studies.open_study(results, spec)
        proposer = StudyProposer(results, spec, study, storage, parallel=studies.default_parallel(results, workers),
                                 on_told=on_told or _ignore_told)
        again = uncancel(results, experiment.id, proposer.trials_left_running())
        ended = run_experiment(results, proposer, backend_for(workers), on_progress=on_progress)
        return Resumed(ended, again, study=study)
    again = uncancel(results, experiment.id)
    if experiment.kind == ExperimentKind.SPLIT:
        from orchestrator.sweeps import split as split_search

        split_proposer = split_search.resumed_split(results, experiment, on_round or _ignore)
        ended = run_experiment(results, split_proposer, backend_for(workers), on_progress=on_progress)
        return Resumed(ended, again, split=split_proposer.result)
    if experiment.kind == ExperimentKind.OPTIMUM:
        ended = run_experiment(results, optima.resumed_proof(results, experiment), backend_for(workers, wait=wait),
                               on_progress=on_progress)
        return Resumed(ended, again)
    going_on = grid_sweep.resumed(results, experiment, force=force, chunk=chunk)
    ended = run_experiment(results, going_on.proposer, backend_for(workers, wait=wait), on_progress=on_progress)
    return Resumed(ended, again, going_on.held)


@dataclass(frozen=True)
class Cancel:
    """What `cancel` did: the experiment, its waiting jobs cancelled and its running ones (stopped by their workers
    within a heartbeat); with `wait`, how many of those ended cancelled (None without)."""

    experiment: SweepRow
    cancelled: Cancelled
    ended_cancelled: int | None = None


def cancel(name: str, *, wait: bool = False, db: DbArg = None, on_cancelled: Callable[[Cancel], None] | None = None) -> Cancel:
    """Cancel an experiment of any kind: its waiting jobs never start, its running ones are stopped by their workers
    within a heartbeat, and its driver proposes nothing more; `resume` goes on with it. With `wait`, return once
    the workers have stopped the running jobs (`on_cancelled` is told what was cancelled before the wait)."""
    from orchestrator.sweeps.running import watch
    from workers.store.sweeps import cancel as cancel_jobs

    results = database(db, existing=True)
    experiment = find_sweep(results, name)
    done = Cancel(experiment, cancel_jobs(results, experiment.id))
    if on_cancelled is not None:
        on_cancelled(done)
    if not wait:
        return done
    watch(lambda: not stopping(results, experiment.id))
    return Cancel(experiment, done.cancelled, len(cancelled_among(results, done.cancelled.running)))


def status(name: str | None = None, *, watch: bool = False, db: DbArg = None, broker: str | None = None,
           on_progress: OnProgress | None = None, on_note: OnNote | None = None) -> SweepStatus:
    """An experiment's jobs by state and outcome, its pace and ETA (default: the newest experiment's). With `watch`,
    follow it until every job is done (or it stopped, or was cancelled), the jobs of lost workers re-queued."""
    results = database(db, broker, existing=True)
    experiment = find_sweep(results, name) if name else newest_sweep(results)
    if watch:
        return follow(results, experiment, on_progress=on_progress or _ignore_progress, on_note=on_note)
    return sweep_status(results, experiment, lease_s=settings().lease_seconds)


def _run_study(results: Database, spec: StudySpec, parallel: int | None, workers: int,
               on_opened: Callable[[Any, int], None] | None, on_told: OnTold | None,
               on_progress: OnProgress | None) -> StudyOutcome:
    study, storage = studies.open_study(results, spec)
    if on_opened is not None:
        on_opened(study, spec.trials)
    proposer = StudyProposer(results, spec, study, storage, on_told=on_told or _ignore_told,
                             parallel=parallel or studies.default_parallel(results, workers))
    return StudyOutcome(run_experiment(results, proposer, backend_for(workers), on_progress=on_progress), study)


def _ignore(_: BoundRound) -> None:
    return None


def _ignore_told(_trial: Any, _outcome: str) -> None:
    return None


def _ignore_progress(_status: SweepStatus, _warm_up: object) -> None:
    return None
