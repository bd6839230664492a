"""A study's proposer: Optuna's samplers propose parameter points, each point runs as ordinary slidelab jobs, its value
goes back.

The study's jobs are those of its experiment row (kind study), planned by the
sweep's own planner (`plan_sweep`), so a trial's jobs have the keys a sweep's
would have: a point proposed twice is one set of jobs, and a point a sweep
already ran under the same limits is copied from its results rather than run.
Optuna keeps the study in the same database (its RDB storage, its own
tables), so `optuna-dashboard URL` opens it. Resuming the study (or running
`tune` again under its name) continues it: trials left running (Ctrl-C, a
cancel, a lost machine) are asked again at the same point (`enqueue_trial`)
and the old ones failed, so their stored jobs count; then new ones are asked
for up to the trial count.

Trials run in rounds of `parallel` (ask-and-tell): each round proposes its
jobs board by board when the study prunes (a batch per board, the first board
of every trial first), else all at once. Boards are the pruner's steps: when a
trial's first boards are done its value over them is reported, and a pruned
trial's remaining jobs are cancelled (waiting ones never run, running ones
stop within a heartbeat).
"""

import importlib.util
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from orchestrator.boards.catalogue import instance
from orchestrator.sweeps.definitions import StudyDefinition
from orchestrator.sweeps.driver import Batch
from orchestrator.sweeps.grid import SweepGrid
from orchestrator.sweeps.plan import check_sweep_name, plan_sweep
from orchestrator.sweeps.tune_objective import Scoring, TrialFailed, parse_scoring, step_value, trial_values
from orchestrator.sweeps.tune_space import Dimension, grid_space, parse_space, suggest
from puzzles.domains import Instance
from puzzles.errors import PuzzleError
from workers.settings import settings
from workers.store import Database
from workers.store import studies as study_store
from workers.store import sweeps as sweep_store
from workers.store.records import JobRow, PlannedJob
from workers.store.states import JobState
from workers.store.sweeps import ExperimentKind, SweepRow

SAMPLERS = ("tpe", "random", "grid", "cmaes", "nsga2")
PRUNERS = ("none", "median", "halving")


@dataclass(frozen=True)
class StudySpec:
    """A study as it runs: its name, algorithm, space, scoring, boards (in pruning order), limits, seeds or repeats,
    and its sampling (sampler, seed, pruner) and trial count."""

    name: str
    algorithm: str
    dimensions: list[Dimension]
    scoring: Scoring
    boards: list[Instance]
    limits: dict[str, Any] = field(default_factory=dict)
    seeds: list[int] | None = None
    repeat: int = 1
    sampler: str = "tpe"
    seed: int | None = None
    pruner: str = "none"
    trials: int = 20

    @property
    def definition(self) -> StudyDefinition:
        """The definition its experiment row keeps."""
        scoring = self.scoring.to_json()
        return StudyDefinition(self.algorithm, {d.name: d.text() for d in self.dimensions}, tuple(scoring["objectives"]),
                               scoring["aggregate"], scoring["unsolved"], tuple(board.name for board in self.boards),
                               tuple(board.id for board in self.boards), None if self.seeds is None else tuple(self.seeds),
                               self.repeat, self.sampler, self.seed, self.pruner, self.trials)

    @classmethod
    def stored(cls, db: Database, experiment: SweepRow) -> "StudySpec":
        """The spec of a stored study, its boards read from the database."""
        kept = StudyDefinition.from_json(experiment.definition)
        boards = [instance(board) for board in study_store.stored_boards(db, list(kept.board_ids))]
        return cls(experiment.name, kept.algorithm, parse_space(kept.algorithm, kept.space),
                   parse_scoring(",".join(kept.objectives), kept.aggregate, kept.unsolved), boards, experiment.limits,
                   None if kept.seeds is None else list(kept.seeds), kept.repeat, kept.sampler, kept.seed, kept.pruner,
                   kept.trials)

    def jobs(self, point: dict[str, Any]) -> list[PlannedJob]:
        """The jobs of one point on every board, as a sweep of that one point under the study's name plans them."""
        grid = SweepGrid([self.algorithm], {name: [value] for name, value in point.items()}, self.seeds, self.repeat,
                         seed_namespace=self.name)
        return plan_sweep(self.name, self.boards, grid, self.limits).jobs

    def save(self, db: Database, planned: list[PlannedJob]) -> int:
        """Store the study's row (made, or its definition replaced) and the jobs it lacks; its id."""
        definition = self.definition
        sweep_id, _ = sweep_store.save(db, self.name, definition.kind, definition.to_json(), self.limits, self.boards, planned)
        return sweep_id


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
    """PuzzleError if the name is taken by another kind of experiment, or by a study with another definition (nothing
    is stored either way); the trial count may change."""
    check_sweep_name(spec.name)
    stored = sweep_store.find(db, spec.name)
    if stored is None:
        return
    if stored.kind != ExperimentKind.STUDY:
        raise PuzzleError(f"{spec.name!r} names {stored.kind.noun}, not a study: give the study another --name")
    changed = spec.definition.differences(StudyDefinition.from_json(stored.definition), set(stored.definition))
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
    """Optuna's grid sampler, less its stop once the grid is walked: `Study.stop` raises outside `optimize`, and the
    study asks and tells on its own; it asks for no more trials than the grid has points (`grid_points`)."""
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


def open_study(db: Database, spec: StudySpec):
    """The Optuna study of the spec in the results database (made, or loaded to continue) and its storage, its
    experiment row stored; PuzzleError for a bad sampler or pruner."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = make_sampler(spec.sampler, spec.seed, spec.dimensions)
    pruner = make_pruner(spec.pruner)
    if len(spec.scoring.objectives) > 1 and not isinstance(pruner, optuna.pruners.NopPruner):
        raise PuzzleError("--pruner: Optuna prunes studies of one objective only; give --pruner none")
    spec.save(db, [])
    storage = optuna.storages.RDBStorage(db.url)
    study = optuna.create_study(study_name=spec.name, storage=storage, sampler=sampler, pruner=pruner,
                                directions=[optuna.study.StudyDirection[o.direction.upper()] for o in spec.scoring.objectives],
                                load_if_exists=True)
    study.set_user_attr("slidelab", spec.definition.to_json())
    return study, storage


OnTold = Callable[[Any, str], None]  # a trial once told (an optuna.trial.FrozenTrial) and how: complete, pruned, fail


class TrialRound:
    """One round of trials: their jobs stored, then followed as they finish (`poll`) until each trial is told."""

    def __init__(self, db: Database, study, spec: StudySpec, sweep_id: int, trials: list[Any], on_told: OnTold) -> None:
        self.db, self.study, self.spec, self.on_told = db, study, spec, on_told
        self.board_ids = [board.id for board in spec.boards]
        optima = study_store.optima(db, self.board_ids)
        self.optima = [optima.get(board) for board in self.board_ids]
        rows = {trial.number: spec.jobs(suggest(trial, spec.dimensions)) for trial in trials}
        spec.save(db, [job for jobs in rows.values() for job in jobs])
        ids = study_store.job_ids(db, [job.job_key for jobs in rows.values() for job in jobs])
        self.running = {trial.number: Running(trial, [[ids[job.job_key] for job in rows[trial.number] if job.board_id == board]
                                                      for board in self.board_ids]) for trial in trials}
        for state in self.running.values():
            state.trial.set_user_attr("job_ids", state.job_ids)
        self.reused = study_store.reuse_results(db, sweep_id, list(ids.values()))

    def job_order(self, boards: range) -> list[int]:
        """The job ids of these boards (indices) of the trials under way, each once: the first board of every
        trial first."""
        return list(dict.fromkeys(job_id for board in boards for state in self.running.values()
                                  for job_id in state.by_board[board]))

    def poll(self, boards: int) -> bool:
        """Report what finished, prune and tell the trials that can be; True once every trial of the round has its
        first `boards` boards done, or is told."""
        done = True
        for number, state in list(self.running.items()):
            jobs = sweep_store.results_of(self.db, state.job_ids)
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

    def _follow(self, state: Running, jobs: list[JobRow]) -> str | None:
        if len(self.spec.scoring.objectives) == 1:
            reached = step_value(self.spec.scoring, jobs, self.board_ids, self.optima)
            if reached is not None and reached[0] > state.step:
                state.step = reached[0]
                state.trial.report(reached[1], reached[0])
                if reached[0] < len(self.board_ids) - 1 and state.trial.should_prune():
                    return self._prune(state)
        if all(job.state == JobState.DONE for job in jobs):
            values = trial_values(self.spec.scoring, jobs, self.board_ids, self.optima)
            return self._tell(state, "complete", values)
        if all(job.state in (JobState.DONE, JobState.CANCELLED) for job in jobs):  # shared with a trial pruned before
            state.trial.set_user_attr("failure", "its jobs were cancelled")
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
        told = self.study.tell(state.trial, values, state=states[outcome])
        self.on_told(told, outcome)
        return outcome


def round_trials(study, storage, total: int, parallel: int) -> list[Any]:
    """The trials of the next round: those left running by an earlier run first, then new ones up to `total` in all.

    A trial left running is taken up again as an `optuna.trial.Trial`, through
    the public methods of the study's `storage` (an RDBStorage): Optuna has no
    public way yet to restore a trial under way for reporting and pruning
    (optuna/optuna#2213, in the ask-and-tell plan optuna/optuna#2177).
    """
    import optuna

    running = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.RUNNING,))[:parallel]
    study_id = storage.get_study_id_from_name(study.study_name)
    left = [optuna.trial.Trial(study, storage.get_trial_id_from_study_id_trial_number(study_id, frozen.number))
            for frozen in running]
    room = max(0, min(parallel - len(left), total - len(study.get_trials(deepcopy=False))))
    return left + [study.ask() for _ in range(room)]


def pruning(study) -> bool:
    """Whether the study has a pruner (its trials then run board by board, so a pruned one's next boards never start)."""
    import optuna

    return not isinstance(study.pruner, optuna.pruners.NopPruner)


class StudyProposer:
    """A study's jobs, a round of trials at a time (a board at a time if it prunes); each trial told once its jobs are
    done, pruned, or failed."""

    def __init__(self, db: Database, spec: StudySpec, study, storage, *, parallel: int, on_told: OnTold) -> None:
        self.db, self.spec, self.study, self.storage = db, spec, study, storage
        self.parallel, self.on_told = parallel, on_told
        found = sweep_store.find(db, spec.name)
        assert found is not None  # open_study stored it
        self.experiment = found
        count = len(spec.boards)
        self.steps = [range(board, board + 1) for board in range(count)] if pruning(study) else [range(count)]
        self.round: TrialRound | None = None
        self.step = len(self.steps)

    def suggest(self) -> Batch | None:
        """The next step's jobs of the round under way, or the first of a new round; None once the study has its
        trials."""
        if self.round is None or self.step == len(self.steps):
            trials = round_trials(self.study, self.storage, self.spec.trials, self.parallel)
            if not trials:
                return None
            self.round, self.step = TrialRound(self.db, self.study, self.spec, self.experiment.id, trials, self.on_told), 0
        self.step += 1
        return Batch(self.round.job_order(self.steps[self.step - 1]), chunk=1)

    def observe(self) -> None:
        """Report, prune and tell what the results so far allow; nothing once the study is cancelled (its trials under
        way are left running, to go on when it is resumed)."""
        if self.round is not None and self.step and not sweep_store.is_cancelled(self.db, self.experiment.id):
            self.round.poll(self.steps[self.step - 1].stop)

    def trials_left_running(self) -> list[int]:
        """The job ids of the trials left running (by Ctrl-C, a cancel, a lost machine): those a resume runs again."""
        import optuna

        running = self.study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.RUNNING,))
        return [job_id for trial in running for job_id in trial.user_attrs.get("job_ids", [])]


def default_parallel(db: Database, workers: int) -> int:
    """Trials run at once by default: `workers` here, or with a broker one per Celery worker online (a heartbeat within
    a lease)."""
    if settings().broker_url:
        return max(1, study_store.online_workers(db, settings().lease_seconds))
    return workers
