"""A study: Optuna's samplers propose parameter points, each point runs as ordinary slidelab jobs, its value goes back.

The study's jobs are those of the sweep row named after it, planned by the
sweep's own planner (`plan_sweep`), so a trial's jobs have the keys a sweep's
would have: a point proposed twice is one set of jobs, and a point a sweep
already ran under the same limits is copied from its results rather than run.
Optuna keeps the study in the same database (its RDB storage, its own
tables), so `optuna-dashboard URL` opens it, and a re-run of the same name
continues it: trials left running (Ctrl-C, a lost machine) are evaluated again
from their stored jobs, then new ones asked for up to the trial count.

Trials run in rounds of `parallel` (ask-and-tell): all their jobs are run at
once, ordered by board, so the first boards of every trial come first. Boards
are the pruner's steps: when a trial's first boards are done its value over
them is reported, and a pruned trial's remaining jobs are cancelled (waiting
ones never run, running ones stop within a heartbeat).
"""

import importlib.util
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from orchestrator.sweeps.grid import SweepGrid
from orchestrator.sweeps.plan import check_sweep_name, plan_sweep
from orchestrator.sweeps.tune_objective import Scoring, TrialFailed, step_value, trial_values
from orchestrator.sweeps.tune_space import Dimension, grid_space, suggest
from puzzles.domains import Instance
from puzzles.errors import PuzzleError
from workers.store import Database
from workers.store import studies as study_store
from workers.store import sweeps as sweep_store
from workers.store.progress import STUDY

SAMPLERS = ("tpe", "random", "grid", "cmaes", "nsga2")
PRUNERS = ("none", "median", "halving")


@dataclass(frozen=True)
class StudySpec:
    """What defines a study: its algorithm, space, scoring, boards (in pruning order), limits and seeds or repeats."""

    name: str
    algorithm: str
    dimensions: list[Dimension]
    scoring: Scoring
    boards: list[Instance]
    limits: dict[str, Any] = field(default_factory=dict)
    seeds: list[int] | None = None
    repeat: int = 1

    def to_json(self) -> dict[str, Any]:
        """The spec as the study's sweep row keeps it (its `spec` column), under STUDY."""
        return {STUDY: {"algorithm": self.algorithm, "space": {d.name: d.text() for d in self.dimensions},
                        **self.scoring.to_json(), "boards": [board.name for board in self.boards],
                        "board_ids": [board.id for board in self.boards], "seeds": self.seeds, "repeat": self.repeat}}

    def jobs(self, point: dict[str, Any]) -> list[dict[str, Any]]:
        """The job rows of one point on every board, as a sweep of that one point under the study's name plans them."""
        grid = SweepGrid([self.algorithm], {name: [value] for name, value in point.items()}, self.seeds, self.repeat,
                         seed_namespace=self.name)
        return plan_sweep(self.name, self.boards, grid, self.limits).jobs


@dataclass
class Running:
    """A trial under way: the Optuna trial, its job ids board by board, and the pruning step it reported last."""

    trial: Any  # optuna.Trial
    by_board: list[list[int]]
    step: int = -1

    @property
    def job_ids(self) -> list[int]:
        """Its job ids, in board order."""
        return [job_id for ids in self.by_board for job_id in ids]


def check_study(db: Database, spec: StudySpec) -> None:
    """PuzzleError if the name is taken by a sweep, or by a study with another spec (nothing is stored either way)."""
    check_sweep_name(spec.name)
    stored = sweep_store.find(db, spec.name)
    if stored is None:
        return
    if STUDY not in stored.grid:
        raise PuzzleError(f"{spec.name!r} names a sweep, not a study: give the study another --name")
    had, given = stored.grid[STUDY], spec.to_json()[STUDY]
    changed = [key for key in given if had.get(key) != given[key]]
    if changed or stored.limits != spec.limits:
        what = ", ".join(changed + (["limits"] if stored.limits != spec.limits else []))
        raise PuzzleError(f"study {spec.name!r} was made with another {what}: give the same options to continue it,"
                          " or another --name")


def grid_points(sampler: str, dimensions: list[Dimension]) -> int | None:
    """The points of the grid sampler's grid (None for another sampler): past them it would only walk it again."""
    if sampler != "grid":
        return None
    return math.prod(len(values) for values in grid_space(dimensions).values())


def make_sampler(name: str, seed: int | None, dimensions: list[Dimension]):
    """Optuna's sampler called `name`, seeded; PuzzleError for an unknown one."""
    import optuna

    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed)
    if name == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    if name == "grid":
        return _grid_walk()(grid_space(dimensions), seed=seed)
    if name == "nsga2":
        return optuna.samplers.NSGAIISampler(seed=seed)
    if name == "cmaes":
        if importlib.util.find_spec("cmaes") is None:  # Optuna would fail only at its first sample
            raise PuzzleError("--sampler cmaes needs the cmaes package: pip install cmaes")
        return optuna.samplers.CmaEsSampler(seed=seed)
    raise PuzzleError(f"--sampler: {name!r} is not one of {', '.join(SAMPLERS)}")


def _grid_walk() -> type:
    """Optuna's grid sampler, less its stop once the grid is walked: `Study.stop` raises outside `optimize`, and tune
    asks and tells on its own; it asks for no more trials than the grid has points (`grid_points`)."""
    import optuna

    class GridWalk(optuna.samplers.GridSampler):
        def after_trial(self, study, trial, state, values) -> None:
            """Nothing: the grid's last point is the study's last trial anyway."""

    return GridWalk


def make_pruner(name: str):
    """Optuna's pruner called `name` (none: never prune); PuzzleError for an unknown one."""
    import optuna

    pruners = {"none": optuna.pruners.NopPruner, "median": optuna.pruners.MedianPruner,
               "halving": optuna.pruners.SuccessiveHalvingPruner}
    if name not in pruners:
        raise PuzzleError(f"--pruner: {name!r} is not one of {', '.join(PRUNERS)}")
    return pruners[name]()


def open_study(db: Database, spec: StudySpec, sampler, pruner):
    """The Optuna study of the spec in the results database (made, or loaded to continue), and its sweep row's id."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    if pruner is not None and len(spec.scoring.objectives) > 1 and not isinstance(pruner, optuna.pruners.NopPruner):
        raise PuzzleError("--pruner: Optuna prunes studies of one objective only; give --pruner none")
    sweep_id, _ = sweep_store.save(db, spec.name, spec.to_json(), spec.limits, spec.boards, [])
    study = optuna.create_study(
        study_name=spec.name, storage=optuna.storages.RDBStorage(db.url), sampler=sampler, pruner=pruner,
        directions=[o.direction for o in spec.scoring.objectives], load_if_exists=True)
    study.set_user_attr("slidelab", spec.to_json()[STUDY])
    return study, sweep_id


class Round:
    """One round of trials: their jobs stored, then followed as they finish (`poll`) until each trial is told."""

    def __init__(self, db: Database, study, spec: StudySpec, sweep_id: int, trials: list[Any],
                 on_told: Callable[[Any, str], None]) -> None:
        self.db, self.study, self.spec, self.on_told = db, study, spec, on_told
        self.board_ids = [board.id for board in spec.boards]
        optima = study_store.optima(db, self.board_ids)
        self.optima = [optima.get(board) for board in self.board_ids]
        rows = {trial.number: spec.jobs(suggest(trial, spec.dimensions)) for trial in trials}
        sweep_store.save(db, spec.name, spec.to_json(), spec.limits, spec.boards, [job for jobs in rows.values() for job in jobs])
        ids = study_store.job_ids(db, [job["job_key"] for jobs in rows.values() for job in jobs])
        self.running = {trial.number: Running(trial, [[ids[job["job_key"]] for job in rows[trial.number] if job["board_id"] == board]
                                                      for board in self.board_ids]) for trial in trials}
        for state in self.running.values():
            state.trial.set_user_attr("job_ids", state.job_ids)
        self.reused = study_store.reuse_results(db, sweep_id, list(ids.values()))

    def job_order(self, boards: range) -> list[int]:
        """The job ids of these boards (indices) still to run (pending, or queued by an earlier run) for the trials
        under way, each once: the first board of every trial first."""
        ordered = list(dict.fromkeys(job_id for board in boards for state in self.running.values()
                                     for job_id in state.by_board[board]))
        waiting = {job["job_id"] for job in study_store.job_values(self.db, ordered) if job["status"] in ("pending", "queued")}
        return [job_id for job_id in ordered if job_id in waiting]

    def poll(self, boards: int) -> bool:
        """Report what finished, prune and tell the trials that can be; True once every trial of the round has its
        first `boards` boards done, or is told."""
        done = True
        for number, state in list(self.running.items()):
            jobs = study_store.job_values(self.db, state.job_ids)
            try:
                outcome = self._follow(state, jobs)
            except TrialFailed as failure:
                state.trial.set_user_attr("failure", str(failure))
                self._cancel_rest(state)
                outcome = self._tell(state, "fail")
            if outcome is not None:
                del self.running[number]
            elif state.step + 1 < boards:
                done = False
        return done

    def _follow(self, state: Running, jobs: list[dict[str, Any]]) -> str | None:
        if len(self.spec.scoring.objectives) == 1:
            reached = step_value(self.spec.scoring, jobs, self.board_ids, self.optima)
            if reached is not None and reached[0] > state.step:
                state.step = reached[0]
                state.trial.report(reached[1], reached[0])
                if reached[0] < len(self.board_ids) - 1 and state.trial.should_prune():
                    return self._prune(state)
        if all(job["status"] == "done" for job in jobs):
            values = trial_values(self.spec.scoring, jobs, self.board_ids, self.optima)
            return self._tell(state, "complete", values)
        if all(job["status"] in ("done", "cancelled") for job in jobs):
            state.trial.set_user_attr("failure", "its jobs were cancelled (orchestrate cancel)")
            return self._tell(state, "fail")
        return None

    def _prune(self, state: Running) -> str:
        self._cancel_rest(state)
        return self._tell(state, "pruned")

    def _cancel_rest(self, state: Running) -> None:
        """Cancel the trial's unfinished jobs that no other trial under way shares; their count kept as a user attribute."""
        needed = {job_id for other in self.running.values() if other is not state for job_id in other.job_ids}
        cancelled = study_store.cancel_jobs(self.db, [job_id for job_id in state.job_ids if job_id not in needed])
        state.trial.set_user_attr("cancelled_jobs", cancelled)

    def _tell(self, state: Running, outcome: str, values: list[float] | None = None) -> str:
        import optuna

        states = {"complete": optuna.trial.TrialState.COMPLETE, "pruned": optuna.trial.TrialState.PRUNED,
                  "fail": optuna.trial.TrialState.FAIL}
        self.study.tell(state.trial, values, state=states[outcome])
        self.on_told(state.trial, outcome)
        return outcome


def round_trials(study, total: int, parallel: int) -> list[Any]:
    """The trials of the next round: those left running by an earlier run first, then new ones up to `total` in all."""
    import optuna

    left = [optuna.Trial(study, frozen._trial_id) for frozen in study.get_trials(deepcopy=False)
            if frozen.state == optuna.trial.TrialState.RUNNING][:parallel]
    room = max(0, min(parallel - len(left), total - len(study.get_trials(deepcopy=False))))
    return left + [study.ask() for _ in range(room)]


def run_study(db: Database, study, spec: StudySpec, sweep_id: int, *, trials: int, parallel: int | None, workers: int,
              on_told: Callable[[Any, str], None]) -> None:
    """Run rounds of `parallel` trials until the study has `trials` and none is left running.

    `parallel` by default: `workers` here, or with a broker one trial per
    Celery worker online (a heartbeat within a lease).

    Their jobs run in `workers` local job processes, or, with a broker, on the
    Celery workers (the jobs of lost workers re-queued meanwhile, as `status
    --watch` does). Ctrl-C stores what is done and leaves the round's trials
    running in the study, for the next run to finish.
    """
    from contextlib import nullcontext
    from functools import partial

    from orchestrator.sweeps.running import job_processes, watch
    from workers.dispatch import send
    from workers.recovery import Recovery
    from workers.settings import settings

    broker = settings().broker_url
    if parallel is None:
        parallel = max(1, study_store.online_workers(db, settings().lease_seconds)) if broker else workers
    count = len(spec.boards)
    steps = [range(board, board + 1) for board in range(count)] if pruning(study) else [range(count)]
    with nullcontext([]) if broker else job_processes(workers) as runners:
        while batch := round_trials(study, trials, parallel):
            current = Round(db, study, spec, sweep_id, batch, on_told)
            for boards in steps:
                waiting = current.job_order(boards)
                if broker:
                    if waiting:
                        send(db, waiting, 1, sweep=spec.name)
                    recover = Recovery(db, partial(send, db))
                    watch(lambda: recover() or current.poll(boards.stop))  # noqa: B023 - called before the loop moves on
                else:
                    run_here(db, current, boards, workers, runners)
                current.poll(boards.stop)


def run_here(db: Database, current: Round, boards: range, workers: int, runners) -> None:
    """Run the round's jobs of `boards` in the local job processes until its trials have them done.

    Jobs an earlier run left running (killed, or stopped at a bad moment) are
    waited for, and made pending again once their lease lapses, as a worker's
    would be; never spun on.
    """
    from orchestrator.sweeps.running import POLL_S, run_local
    from workers.recovery import Recovery

    recover = Recovery(db, None)
    while not current.poll(boards.stop):
        waiting = current.job_order(boards)
        if waiting:
            run_local(db, waiting, workers, 1, lambda _: current.poll(boards.stop), runners=runners)
        else:
            time.sleep(POLL_S)
            recover()


def pruning(study) -> bool:
    """Whether the study has a pruner (its trials then run board by board, so a pruned one's next boards never start)."""
    import optuna

    return not isinstance(study.pruner, optuna.pruners.NopPruner)
